/**
 * One summarizer attempt, bounded: it fails with a `timeout` `SummarizerError` after
 * `timeoutMs`, and rejects at once when the caller's signal aborts. The summarizer's own signal
 * aborts in both cases, but a summarizer that ignores it cannot hold the turn: the wait is a
 * race, not a promise to be kept.
 */
import type { EventsSummarizer, SummarizeOptions, Summary } from '../../compaction/types.js';
import { SummarizerError } from '../../summarizers/errors.js';

export function summarizeWithin(options: {
  summarizer: EventsSummarizer;
  request: Omit<SummarizeOptions, 'signal'>;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<Summary | null> {
  const { summarizer, request, timeoutMs, signal } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const controller = new AbortController();
  return new Promise<Summary | null>((resolve, reject) => {
    const onAbort = () => {
      controller.abort(signal?.reason);
      finish();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      const error = new SummarizerError({
        reason: 'timeout',
        summarizer: summarizer.name,
        message: `no answer within summarizerTimeoutMs=${timeoutMs} ms`,
      });
      controller.abort(error);
      finish();
      reject(error);
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let pending: Promise<Summary | null>;
    try {
      pending = summarizer.summarize({ ...request, signal: controller.signal });
    } catch (error) {
      // A summarizer that throws instead of rejecting.
      pending = Promise.reject(error);
    }
    pending.then(
      (summary) => {
        finish();
        resolve(summary);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}
