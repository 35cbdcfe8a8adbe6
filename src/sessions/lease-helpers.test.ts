import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionBusyError, SessionLeaseLostError, SessionStoreError } from './errors.js';
import { pollForLease, releaseLeaseWith, startHeldLease } from './lease-helpers.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function heldLease(renewRecord: () => Promise<boolean>, releaseRecord = async () => {}) {
  return startHeldLease({
    key,
    leaseId: 'lease-1',
    ttlMs: 3_000,
    renew: true,
    renewRecord,
    releaseRecord,
  });
}

describe('startHeldLease', () => {
  it('renews every third of the ttl and stays held for as long as renewals succeed', async () => {
    const renewRecord = vi.fn(async () => true);
    const lease = heldLease(renewRecord);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(renewRecord).toHaveBeenCalledTimes(30);
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(renewRecord).toHaveBeenCalledTimes(30);
  });

  it('aborts its signal with SessionLeaseLostError when a renewal finds it taken', async () => {
    let held = true;
    const lease = heldLease(async () => held);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.signal.aborted).toBe(false);
    held = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(SessionLeaseLostError.isInstance(lease.signal.reason)).toBe(true);
    expect((lease.signal.reason as SessionLeaseLostError).sessionId).toBe('session');
    expect((lease.signal.reason as Error).message).toContain('another holder took it');
  });

  it('rides out failed renewals inside the ttl, and is lost once they outlast it', async () => {
    let failing = true;
    const renewRecord = vi.fn(async () => {
      if (failing) throw new Error('connection reset');
      return true;
    });
    const lease = heldLease(renewRecord);
    await vi.advanceTimersByTimeAsync(2_000); // two failures, 1 s left of the ttl
    expect(lease.signal.aborted).toBe(false);
    failing = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(lease.signal.aborted).toBe(false);
    failing = true;
    await vi.advanceTimersByTimeAsync(4_000);
    const reason = lease.signal.reason as SessionLeaseLostError;
    expect(SessionLeaseLostError.isInstance(reason)).toBe(true);
    expect((reason.cause as Error).message).toBe('connection reset');
  });

  it('lapses at the ttl without renewal; release is idempotent and never throws', async () => {
    const releaseRecord = vi.fn(async () => {
      throw new Error('store gone');
    });
    const lease = startHeldLease({ key, leaseId: 'l', ttlMs: 500, renew: false, releaseRecord });
    await vi.advanceTimersByTimeAsync(499);
    expect(lease.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(SessionLeaseLostError.isInstance(lease.signal.reason)).toBe(true);
    await expect(lease.release()).resolves.toBeUndefined();
    await expect(lease.release()).resolves.toBeUndefined();
    expect(releaseRecord).toHaveBeenCalledTimes(1);
  });
});

describe('releaseLeaseWith', () => {
  const foldable = (renewRecord: () => Promise<boolean>) => {
    const released = { record: 0, local: 0 };
    const lease = startHeldLease({
      key,
      leaseId: 'lease-1',
      ttlMs: 3_000,
      renew: true,
      renewRecord,
      releaseRecord: async () => {
        released.record++;
      },
      releaseLocal: async () => {
        released.local++;
      },
    });
    return { lease, released };
  };

  it('marks the lease released when the statement freed its record: no release of its own', async () => {
    const renewRecord = vi.fn(async () => true);
    const { lease, released } = foldable(renewRecord);
    const result = await releaseLeaseWith(lease, async () => ({ value: 7, freed: true }));
    expect(result).toEqual({ value: 7 });
    await lease.release();
    expect(released).toEqual({ record: 0, local: 1 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(renewRecord).not.toHaveBeenCalled();
    expect(lease.signal.aborted).toBe(false);
  });

  it('a renewal that finds the record free while the statement runs is no loss', async () => {
    const { lease, released } = foldable(async () => false);
    let finish: (freed: boolean) => void = () => {};
    const folded = releaseLeaseWith(
      lease,
      () =>
        new Promise<{ value: number; freed: boolean }>((resolve) => {
          finish = (freed) => resolve({ value: 1, freed });
        }),
    );
    await vi.advanceTimersByTimeAsync(1_100);
    expect(lease.signal.aborted).toBe(false);
    finish(true);
    await folded;
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
    expect(released).toEqual({ record: 0, local: 1 });
  });

  it('a statement that throws or freed nothing leaves the lease to its holder', async () => {
    const { lease, released } = foldable(async () => true);
    const failed = releaseLeaseWith(lease, async () => {
      throw new Error('lost');
    });
    await expect(failed).rejects.toThrow('lost');
    await releaseLeaseWith(lease, async () => ({ value: 1, freed: false }));
    await lease.release();
    expect(released).toEqual({ record: 1, local: 0 });
  });

  it('a lease without a record to free: nothing run', async () => {
    const lease = heldLease(async () => true);
    const statement = vi.fn(async () => ({ value: 1, freed: true }));
    expect(await releaseLeaseWith(lease, statement)).toBeUndefined();
    expect(statement).not.toHaveBeenCalled();
    await lease.release();
  });
});

describe('pollForLease', () => {
  it('backs off between attempts and ends in SessionBusyError at waitMs', async () => {
    const attempt = vi.fn(async () => false);
    const polling = pollForLease({
      attempt,
      waitMs: 5_000,
      busy: () => new SessionBusyError({ ...key, waitedMs: 5_000 }),
    });
    const settled = polling.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5_000);
    const error = await settled;
    expect(SessionBusyError.isInstance(error)).toBe(true);
    // Backoff doubling to 250 ms (with jitter): about 25 attempts in 5 s, never a busy loop.
    expect(attempt.mock.calls.length).toBeGreaterThan(5);
    expect(attempt.mock.calls.length).toBeLessThan(60);
  });

  it('tries again after a retryable store error, and throws it if it is the last', async () => {
    const lost = new SessionStoreError({ message: 'connection lost', retryable: true });
    let calls = 0;
    const recovered = pollForLease({
      attempt: async () => {
        calls++;
        if (calls < 3) throw lost;
        return true;
      },
      waitMs: 5_000,
      busy: () => new Error('busy'),
    });
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(recovered).resolves.toBeUndefined();
    expect(calls).toBe(3);

    const down = pollForLease({
      attempt: async () => {
        throw lost;
      },
      waitMs: 2_000,
      busy: () => new Error('busy'),
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await down).toBe(lost);

    const fatal = new SessionStoreError({ message: 'corrupt' });
    await expect(
      pollForLease({
        attempt: async () => {
          throw fatal;
        },
        waitMs: 2_000,
        busy: () => new Error('busy'),
      }),
    ).rejects.toBe(fatal);
  });

  it('stops at once when the signal aborts', async () => {
    const controller = new AbortController();
    const polling = pollForLease({
      attempt: async () => false,
      waitMs: 60_000,
      signal: controller.signal,
      busy: () => new Error('busy'),
    });
    const settled = polling.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('stop');
    controller.abort(reason);
    expect(await settled).toBe(reason);
  });
});
