/**
 * The Runner call a run request makes. `streaming: true` (ADK's `streaming`, `/run_sse` only)
 * adds partial events (the model's text as it comes, never stored) before each stored answer.
 */
import type { Content } from '../events/types.js';
import type { RunOptions } from '../runtime/turn/runner.js';
import type { RunRequest } from './request-body.js';

export function runOptionsFor(options: {
  request: RunRequest;
  newMessage: Content;
  signal: AbortSignal;
  streaming: boolean;
}): RunOptions {
  return {
    userId: options.request.userId,
    sessionId: options.request.sessionId,
    newMessage: options.newMessage,
    signal: options.signal,
    streaming: options.streaming,
  };
}
