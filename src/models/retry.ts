/**
 * Backoff for model calls, shared by the agent loop and the summarizer: a `retryable`
 * `ModelError` (429, 5xx, network) is retried, honouring the provider's `retryAfterMs`; any
 * other error, an abort, or a provider asking to wait longer than `maxDelayMs` ends it.
 */

import { abortableDelay } from '../util/abort.js';
import { ModelError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First delay, doubled each retry unless the provider says `retryAfterMs`. */
  baseDelayMs: number;
  /** Longest wait: a provider asking for more fails the call at once instead of holding it. */
  maxDelayMs: number;
}

/** Runs `attempt` until it succeeds or the error is not worth another try. */
export async function withModelRetry<T>(options: {
  attempt: () => Promise<T>;
  policy: RetryPolicy;
  signal?: AbortSignal;
}): Promise<T> {
  const { policy, signal } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await options.attempt();
    } catch (error) {
      if (
        signal?.aborted ||
        !ModelError.isInstance(error) ||
        error.kind !== 'retryable' ||
        attempt >= policy.maxRetries ||
        (error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxDelayMs)
      ) {
        throw error;
      }
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      await abortableDelay(error.retryAfterMs ?? backoff, signal);
    }
  }
}
