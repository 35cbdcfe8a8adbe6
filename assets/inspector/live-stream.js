// @ts-check
/**
 * Live updates of one session: follows the API's SSE stream from the last seq the page knows,
 * and reconnects (with a growing pause) when the connection drops, resuming after the last
 * event it saw so nothing is missed or shown twice.
 */
import { ApiError, api } from './api.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineEvent} TimelineEvent
 * @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan
 * @typedef {import('./api.js').SessionKey} SessionKey
 * @typedef {'live' | 'reconnecting' | 'stopped'} LiveStatus
 */

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 15_000;

/**
 * @param {number} milliseconds
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function pause(milliseconds, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
      { once: true },
    );
  });
}

/**
 * @param {{ key: SessionKey, afterSeq: number, onEvent: (event: TimelineEvent) => void,
 *   onCompaction: (span: CompactionSpan) => void, onStatus: (status: LiveStatus) => void,
 *   onError: (error: unknown) => void, signal: AbortSignal }} options
 */
export async function followSession({
  key,
  afterSeq,
  onEvent,
  onCompaction,
  onStatus,
  onError,
  signal,
}) {
  let cursor = afterSeq;
  let retryMs = FIRST_RETRY_MS;
  while (!signal.aborted) {
    onStatus('live');
    try {
      await api.stream(key, {
        afterSeq: cursor,
        signal,
        onMessage: (message) => {
          retryMs = FIRST_RETRY_MS;
          if (message?.type === 'event' && message.event) {
            if (message.event.seq <= cursor) return;
            cursor = message.event.seq;
            onEvent(message.event);
          } else if (message?.type === 'compaction' && message.compaction) {
            onCompaction(message.compaction);
          }
        },
      });
    } catch (error) {
      if (signal.aborted) return;
      // A refused token or a missing session will not get better by retrying.
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) {
        onStatus('stopped');
        onError(error);
        return;
      }
    }
    if (signal.aborted) return;
    onStatus('reconnecting');
    await pause(retryMs, signal);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  }
}
