import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { SessionBusyError, SessionLeaseLostError } from '../../sessions/errors.js';
import type {
  AcquireLeaseOptions,
  SessionLease,
  SessionService,
} from '../../sessions/session-service.js';
import { userTextEvent } from '../event-builders.js';
import { type ConformanceContext, rejection } from './context.js';

/** Long enough that nothing here waits it out: it only bounds a hang. */
const LONG_WAIT_MS = 60_000;

function acquireFrom(service: SessionService) {
  return (options: AcquireLeaseOptions): Promise<SessionLease> => {
    if (!service.acquireLease) {
      throw new Error('this store has no acquireLease (pass leases: false to skip these tests)');
    }
    return service.acquireLease(options);
  };
}

/** Resolves when the signal aborts (at once if it has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** The session lease (`acquireLease`): exclusive, ordered, bounded waits, expiry, scoping. */
export function describeLease(context: ConformanceContext): void {
  const { newSession } = context;

  /** Whether a caller that will not wait gets the session now. */
  async function isFree(key: SessionKey): Promise<boolean> {
    try {
      const lease = await acquireFrom(context.service)({ ...key, waitMs: 0 });
      await lease.release();
      return true;
    } catch (error) {
      if (SessionBusyError.isInstance(error)) return false;
      throw error;
    }
  }

  describe('session lease', () => {
    it('gives a session to one holder at a time; the next gets it once released', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const first = await acquire(key);
      expect(await isFree(key)).toBe(false);
      const order: string[] = [];
      const second = acquire({ ...key, waitMs: LONG_WAIT_MS }).then((lease) => {
        order.push('second acquired');
        return lease;
      });
      expect(await isFree(key)).toBe(false);
      order.push('first released');
      await first.release();
      const next = await second;
      expect(order).toEqual(['first released', 'second acquired']);
      expect(next.leaseId).not.toBe(first.leaseId);
      expect(next.signal.aborted).toBe(false);
      expect(await isFree(key)).toBe(false);
      await next.release();
      expect(await isFree(key)).toBe(true);
    });

    it('serves waiters in the order they asked', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const holder = await acquire(key);
      const order: string[] = [];
      const waiters = ['b', 'c', 'd'].map((name) =>
        acquire({ ...key, waitMs: LONG_WAIT_MS }).then(async (lease) => {
          order.push(name);
          await lease.release();
        }),
      );
      await holder.release();
      await Promise.all(waiters);
      expect(order).toEqual(['b', 'c', 'd']);
    });

    it('throws SessionBusyError naming the session and the wait once waitMs has passed', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const holder = await acquire(key);
      const error = await rejection(acquire({ ...key, waitMs: 50 }));
      expect(SessionBusyError.isInstance(error)).toBe(true);
      const busy = error as SessionBusyError;
      expect([busy.appName, busy.userId, busy.sessionId, busy.waitedMs]).toEqual([
        key.appName,
        key.userId,
        key.sessionId,
        50,
      ]);
      expect(busy.message).toContain(`'${key.sessionId}'`);
      expect(busy.message).toContain('50 ms');
      // The refused caller took nothing: the holder still holds, and frees it on release.
      expect(holder.signal.aborted).toBe(false);
      expect(await isFree(key)).toBe(false);
      await holder.release();
      expect(await isFree(key)).toBe(true);
    });

    it("ends a wait at once when the caller's signal aborts, with its reason", async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const holder = await acquire(key);
      const controller = new AbortController();
      const waiting = acquire({ ...key, waitMs: LONG_WAIT_MS, signal: controller.signal });
      const reason = new Error('caller gave up');
      const started = Date.now();
      controller.abort(reason);
      expect(await rejection(waiting)).toBe(reason);
      expect(Date.now() - started).toBeLessThan(LONG_WAIT_MS);
      const before = new AbortController();
      before.abort(reason);
      expect(await rejection(acquire({ ...key, signal: before.signal }))).toBe(reason);
      await holder.release();
      // The abandoned waits left nothing behind.
      expect(await isFree(key)).toBe(true);
    });

    it('release is idempotent, never throws, and never frees a later holder', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const first = await acquire(key);
      await first.release();
      await first.release();
      const second = await acquire({ ...key, waitMs: 0 });
      await first.release();
      expect(await isFree(key)).toBe(false);
      await Promise.all([second.release(), second.release()]);
      expect(await isFree(key)).toBe(true);
    });

    it('frees a lease whose holder stopped renewing once its ttl passed', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const ttlMs = 100;
      const takenFrom = Date.now();
      const stalled = await acquire({ ...key, ttlMs, renew: false });
      const next = await acquire({ ...key, waitMs: LONG_WAIT_MS });
      // Not before the stalled holder's expiry (whatever the machine's speed).
      expect(Date.now() - takenFrom).toBeGreaterThanOrEqual(ttlMs - 1);
      await aborted(stalled.signal);
      expect(SessionLeaseLostError.isInstance(stalled.signal.reason)).toBe(true);
      expect((stalled.signal.reason as SessionLeaseLostError).sessionId).toBe(key.sessionId);
      expect(next.signal.aborted).toBe(false);
      // The stalled holder's late release does not free the new holder's lease.
      await stalled.release();
      expect(await isFree(key)).toBe(false);
      await next.release();
    });

    it('is scoped by app, user and session', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      const holder = await acquire(key);
      for (const other of [
        { ...key, appName: `${key.appName}-other` },
        { ...key, userId: `${key.userId}-other` },
        { ...key, sessionId: `${key.sessionId}-other` },
      ]) {
        expect(await isFree(other)).toBe(true);
      }
      expect(await isFree(key)).toBe(false);
      await holder.release();
    });

    it('acquireLeaseAndGetSession (when present) holds the lease and reads the session under it', async (test) => {
      const service = context.service;
      if (!service.acquireLeaseAndGetSession) return test.skip();
      const key = await newSession();
      for (const round of [1, 2]) {
        // The second round reads after the first round's own append (a store's cached view).
        const taken = await service.acquireLeaseAndGetSession(key);
        expect(await isFree(key)).toBe(false);
        expect(taken.session).toEqual(await service.getSession(key));
        await service.appendEvent({ ...key, event: userTextEvent({ text: `round ${round}` }) });
        await taken.lease.release();
      }
      expect((await service.getSession(key))?.events).toHaveLength(2);
      expect(await isFree(key)).toBe(true);
      const missing = { ...key, sessionId: `${key.sessionId}-missing` };
      const held = await service.acquireLeaseAndGetSession(missing);
      expect(held.session).toBeUndefined();
      expect(await isFree(missing)).toBe(false);
      await held.lease.release();
      expect(await isFree(missing)).toBe(true);
    });

    it('acquireLeaseAndAppend (when present) appends under the lease, never without it', async (test) => {
      const service = context.service;
      if (!service.acquireLeaseAndAppend) return test.skip();
      const key = await newSession();
      for (const round of [1, 2]) {
        const event = userTextEvent({ text: `round ${round}` });
        const taken = await service.acquireLeaseAndAppend({ ...key, event });
        expect(await isFree(key)).toBe(false);
        expect(taken.event).toMatchObject({ seq: round, author: 'user' });
        expect(taken.session).toEqual(await service.getSession(key));
        expect(taken.session?.events.at(-1)).toEqual(taken.event);
        await taken.lease.release();
      }
      // Held elsewhere: busy, and nothing appended.
      const holder = await acquireFrom(service)(key);
      const busy = service.acquireLeaseAndAppend({
        ...key,
        waitMs: 0,
        event: userTextEvent({ text: 'not while held' }),
      });
      expect(SessionBusyError.isInstance(await rejection(busy))).toBe(true);
      await holder.release();
      expect((await service.getSession(key))?.events).toHaveLength(2);
      const missing = { ...key, sessionId: `${key.sessionId}-missing` };
      const held = await service.acquireLeaseAndAppend({
        ...missing,
        event: userTextEvent({ text: 'nowhere' }),
      });
      expect(held.session).toBeUndefined();
      expect(held.event).toBeUndefined();
      expect(await isFree(missing)).toBe(false);
      await held.lease.release();
      expect(await service.getSession(missing)).toBeUndefined();
    });

    it('appendEventAndReleaseLease (when present) stores the event and frees the lease', async (test) => {
      const service = context.service;
      if (!service.appendEventAndReleaseLease) return test.skip();
      const key = await newSession();
      const lease = await acquireFrom(service)(key);
      const event = userTextEvent({ text: 'the last one' });
      const stored = await service.appendEventAndReleaseLease({ ...key, event, lease });
      expect(stored).toMatchObject({ seq: 1, author: 'user' });
      expect(await isFree(key)).toBe(true);
      await lease.release(); // idempotent: frees nothing of the next holder's
      const next = await acquireFrom(service)(key);
      await lease.release();
      expect(await isFree(key)).toBe(false);
      await next.release();
      expect((await service.getSession(key))?.events.at(-1)).toEqual(stored);
    });

    it('rejects bad options with InvalidArgumentError naming them', async () => {
      const acquire = acquireFrom(context.service);
      const key = await newSession();
      for (const [options, argument] of [
        [{ waitMs: -1 }, 'waitMs'],
        [{ waitMs: 1.5 }, 'waitMs'],
        [{ ttlMs: 0 }, 'ttlMs'],
        [{ ttlMs: Number.NaN }, 'ttlMs'],
      ] as const) {
        const error = await rejection(acquire({ ...key, ...options }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect((error as InvalidArgumentError).argument).toBe(argument);
      }
      const badKey = await rejection(acquire({ ...key, sessionId: '' }));
      expect((badKey as InvalidArgumentError).argument).toBe('sessionId');
      expect(await isFree(key)).toBe(true);
    });
  });
}
