/**
 * Backoff for an agent's model calls: a `retryable` provider error (429, 5xx, network) is
 * retried, honouring the provider's `retryAfterMs`; other errors pass through. The AI SDK
 * adapter calls `doGenerate` without retries, so this is the only retry layer.
 */
import { withModelRetry } from '../../models/retry.js';
import type { Model, ModelRequest, ModelResponse } from '../../models/types.js';
import { RunnerConfigError } from '../errors.js';

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

export function generateWithRetry(options: {
  model: Model;
  request: ModelRequest;
  retry?: Required<ModelRetryOptions>;
}): Promise<ModelResponse> {
  return withModelRetry({
    attempt: () => options.model.generate(options.request),
    policy: options.retry ?? DEFAULT_MODEL_RETRY,
    signal: options.request.signal,
  });
}
