/**
 * Backoff for an agent's model calls: a `retryable` provider error (429, 5xx, network) is
 * retried, honouring the provider's `retryAfterMs`; other errors pass through. The AI SDK
 * adapter calls `doGenerate` without retries, so this is the only retry layer.
 */
import { ModelError } from '../models/errors.js';
import type { Model, ModelRequest, ModelResponse } from '../models/types.js';
import { RunnerConfigError } from './errors.js';

export interface ModelRetryOptions {
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** First delay, doubled each retry. Default 1000 ms. */
  baseDelayMs?: number;
  /**
   * Longest wait. A provider asking to wait longer (`retry-after`) fails the call at once
   * rather than holding the turn. Default 30000 ms.
   */
  maxDelayMs?: number;
}

export const DEFAULT_MODEL_RETRY: Required<ModelRetryOptions> = {
  maxRetries: 2,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
};

export function resolveModelRetry(options: ModelRetryOptions = {}): Required<ModelRetryOptions> {
  const resolved = { ...DEFAULT_MODEL_RETRY };
  for (const field of ['maxRetries', 'baseDelayMs', 'maxDelayMs'] as const) {
    const value = options[field];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0) {
      throw new RunnerConfigError({
        field: `modelRetry.${field}`,
        value,
        message: 'must be an integer >= 0',
      });
    }
    resolved[field] = value;
  }
  return resolved;
}

function sleep(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function generateWithRetry(options: {
  model: Model;
  request: ModelRequest;
  retry?: Required<ModelRetryOptions>;
}): Promise<ModelResponse> {
  const retry = options.retry ?? DEFAULT_MODEL_RETRY;
  const signal = options.request.signal;
  for (let attempt = 0; ; attempt++) {
    try {
      return await options.model.generate(options.request);
    } catch (error) {
      if (
        signal?.aborted ||
        !ModelError.isInstance(error) ||
        error.kind !== 'retryable' ||
        attempt >= retry.maxRetries
      ) {
        throw error;
      }
      const backoff = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
      if (error.retryAfterMs !== undefined && error.retryAfterMs > retry.maxDelayMs) throw error;
      await sleep(error.retryAfterMs ?? backoff, signal);
    }
  }
}
