import { describe, expect, it } from 'vitest';
import { abortableDelay } from '../util/abort.js';
import { ModelError } from './errors.js';
import { withModelRetry } from './retry.js';

const policy = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 50 };

function failing(errors: unknown[]) {
  let calls = 0;
  return {
    attempt: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return 'ok';
    },
    get calls() {
      return calls;
    },
  };
}

describe('withModelRetry', () => {
  it('retries retryable errors, then succeeds', async () => {
    const run = failing([
      new ModelError({ kind: 'retryable', message: '503' }),
      new ModelError({ kind: 'retryable', message: '429', retryAfterMs: 5 }),
    ]);
    await expect(withModelRetry({ attempt: run.attempt, policy })).resolves.toBe('ok');
    expect(run.calls).toBe(3);
  });

  it('gives up after maxRetries, on fatal errors and on waits longer than maxDelayMs', async () => {
    const retryable = () => new ModelError({ kind: 'retryable', message: '503' });
    const exhausted = failing([retryable(), retryable(), retryable()]);
    await expect(withModelRetry({ attempt: exhausted.attempt, policy })).rejects.toThrow('503');
    expect(exhausted.calls).toBe(3);

    const fatal = failing([new ModelError({ kind: 'fatal', message: '401' })]);
    await expect(withModelRetry({ attempt: fatal.attempt, policy })).rejects.toThrow('401');
    expect(fatal.calls).toBe(1);

    const tooLong = failing([
      new ModelError({ kind: 'retryable', message: 'wait', retryAfterMs: 60_000 }),
    ]);
    await expect(withModelRetry({ attempt: tooLong.attempt, policy })).rejects.toThrow('wait');
    expect(tooLong.calls).toBe(1);
  });

  it('stops a backoff wait as soon as the signal aborts', async () => {
    const controller = new AbortController();
    const run = failing([
      new ModelError({ kind: 'retryable', message: '429', retryAfterMs: 5_000 }),
    ]);
    setTimeout(() => controller.abort(new Error('stop')), 5);
    await expect(
      withModelRetry({
        attempt: run.attempt,
        policy: { ...policy, maxDelayMs: 10_000 },
        signal: controller.signal,
      }),
    ).rejects.toThrow('stop');
    expect(run.calls).toBe(1);
    await expect(abortableDelay(10, controller.signal)).rejects.toThrow('stop');
  });
});
