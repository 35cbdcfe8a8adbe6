/** The messages between the server's thread and a replay worker (`replay-worker.ts`). */
import type { ReplayResponse } from './api-types.js';

/** Sent once: the raw request body (its buffer is transferred, not copied). */
export interface ReplayWorkerRequest {
  body: Uint8Array;
}

export type ReplayWorkerMessage =
  /** Events replayed so far (every few events). */
  | { type: 'progress'; events: number }
  | { type: 'done'; response: ReplayResponse }
  /** The request's fault: answered as this problem. */
  | {
      type: 'problem';
      problem: { status: number; slug: string; title: string; detail: string; field?: string };
    }
  /** The replay failed: a 500, logged with this message and stack. */
  | { type: 'error'; error: { name: string; message: string; stack?: string } };
