/**
 * The inspector's replay off the server's event loop: each `POST /inspector/api/replay` body goes
 * to a worker thread of its own (`replay-worker.ts`) that parses, checks and replays it, so
 * `/healthz` and every other request are answered meanwhile. When the request's signal aborts
 * (the client went away, the server shuts down) the worker is terminated: the work stops at once,
 * wherever it was. `orrery serve` and `orrery inspect` give this to `createServer`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpProblem } from '../errors.js';
import type { ReplayResponse } from './api-types.js';
import type { InspectorBodyReplay } from './inspector-deps.js';
import type { ReplayWorkerMessage, ReplayWorkerRequest } from './replay-worker-protocol.js';

export interface WorkerReplayOptions {
  /** Hears each progress report of a replay: the events it replayed so far. */
  onProgress?: (events: number) => void;
  /** Hears when a replay's worker has exited: the events it reported, and whether it was stopped. */
  onExit?: (report: { events: number; stopped: boolean }) => void;
}

export function createWorkerReplay(options: WorkerReplayOptions = {}): InspectorBodyReplay {
  return { fromBody: ({ body, signal }) => replayInWorker({ body, signal, ...options }) };
}

/** The worker, from `dist/` as built, or from source through tsx (tests, `tsx src/...`). */
function startWorker(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./replay-worker.js', here));
  const entry = new URL('./replay-worker.ts', here).href;
  // Resolved here, not in the worker: an eval'd worker resolves from the process's cwd.
  const tsxRoot = dirname(createRequire(here).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true });
}

/** A worker's failure as the Error the server logs (its message and stack, masked there). */
function workerError(error: { name: string; message: string; stack?: string }): Error {
  const failure = new Error(error.message);
  failure.name = error.name;
  if (error.stack !== undefined) failure.stack = error.stack;
  return failure;
}

/** Why a replay stopped, as an Error (a request's signal may abort with a string). */
function stopReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(`the replay was stopped: ${String(reason)}`, { cause: reason });
  error.name = 'AbortError';
  return error;
}

function replayInWorker(
  options: WorkerReplayOptions & { body: Uint8Array; signal: AbortSignal },
): Promise<ReplayResponse> {
  const { body, signal } = options;
  return new Promise<ReplayResponse>((resolve, reject) => {
    if (signal.aborted) {
      reject(stopReason(signal));
      return;
    }
    const worker = startWorker();
    let events = 0;
    let stopped = false;
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      done();
      void worker.terminate();
    };
    const onAbort = () => {
      stopped = !settled;
      settle(() => reject(stopReason(signal)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: ReplayWorkerMessage) => {
      if (settled) return;
      if (message.type === 'progress') {
        events = message.events;
        options.onProgress?.(events);
      } else if (message.type === 'done') {
        settle(() => resolve(message.response));
      } else if (message.type === 'problem') {
        settle(() => reject(new HttpProblem(message.problem)));
      } else {
        settle(() => reject(workerError(message.error)));
      }
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => {
      options.onExit?.({ events, stopped });
      settle(() => reject(new Error(`the replay worker exited (code ${code}) before answering`)));
    });
    // The body's buffer moves to the worker when it is the body's alone; else it is copied.
    const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const request: ReplayWorkerRequest = { body };
    worker.postMessage(request, whole ? [body.buffer as ArrayBuffer] : []);
  });
}
