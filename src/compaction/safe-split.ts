// CONTRACT STUB — implemented by the core-logic work. Signatures are fixed; bodies are not.
import type { Event } from '../events/types.js';
import type { DeadCall } from './types.js';

export type ObligationKind =
  | 'function_call'
  | 'tool_confirmation'
  | 'auth_request'
  | 'long_running';

export interface Obligation {
  kind: ObligationKind;
  /** The function call id the obligation is keyed by. */
  id: string;
  /** `seq` of the event that opened it. */
  seq: number;
  invocationId: string;
  name?: string;
}

export interface SafeSplitOptions {
  /** Candidate events in `seq` order (the tail after the checkpoint). */
  events: Event[];
  /** Summarize `events[0..desiredEndIndex]` inclusive if safe; the split only moves earlier. */
  desiredEndIndex: number;
  /** The invocation still running (its calls are never dead). */
  currentInvocationId?: string;
}

export interface SafeSplit {
  /** Last index to summarize, `-1` when no safe split exists at or before the desired one. */
  endIndex: number;
  /** Calls summarized without a response because their invocation ended. */
  deadCalls: DeadCall[];
}

/** Obligations still open after `events` (dead calls excluded). */
export function openObligations(options: {
  events: Event[];
  currentInvocationId?: string;
}): Obligation[] {
  throw new Error('not implemented');
}

export function findSafeSplit(options: SafeSplitOptions): SafeSplit {
  throw new Error('not implemented');
}
