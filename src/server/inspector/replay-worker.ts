/**
 * The replay worker's entry (a `worker_threads` module started by `worker-replay.ts`, one per
 * replay): it decodes, parses and checks the request body, replays it, and posts its progress
 * and then its answer, a problem (the request's fault) or an error. Importing it outside a
 * worker does nothing.
 */
import { parentPort } from 'node:worker_threads';
import { replayForInspector } from './inspector-replay.js';
import { parseReplayBody, replayProblem } from './replay-request.js';
import type { ReplayWorkerMessage, ReplayWorkerRequest } from './replay-worker-protocol.js';

/** Progress is posted every this many events (a message per event would cost more than it says). */
const PROGRESS_EVERY = 16;

async function replayBody(request: ReplayWorkerRequest): Promise<ReplayWorkerMessage> {
  try {
    const text = new TextDecoder().decode(request.body);
    const response = await replayForInspector({
      request: parseReplayBody(text),
      onProgress: (events) => {
        if (events % PROGRESS_EVERY === 0) parentPort?.postMessage({ type: 'progress', events });
      },
    });
    return { type: 'done', response };
  } catch (error) {
    const problem = replayProblem(error);
    if (problem) {
      return {
        type: 'problem',
        problem: {
          status: problem.status,
          slug: problem.slug,
          title: problem.title,
          detail: problem.message,
          field: problem.field,
        },
      };
    }
    const failure = error instanceof Error ? error : new Error(String(error));
    return {
      type: 'error',
      error: { name: failure.name, message: failure.message, stack: failure.stack },
    };
  }
}

const port = parentPort;
if (port) {
  port.once('message', (request: ReplayWorkerRequest) => {
    void replayBody(request).then((message) => port.postMessage(message));
  });
}
