/**
 * Session leases within one process: a FIFO queue per session key. The in-memory store's
 * `acquireLease`, and the local gate of the SQLite and PostgreSQL leases (waiters in one
 * process queue here in order instead of all polling the database).
 */
import { randomUUID } from 'node:crypto';
import { SessionBusyError } from './errors.js';
import { type ResolvedLeaseOptions, resolveLeaseOptions, startHeldLease } from './lease-helpers.js';
import type { AcquireLeaseOptions, SessionLease } from './session-service.js';

interface Waiter {
  /** Hands the lease to this waiter (called with the session's record already free). */
  grant(): void;
}

interface LeaseRecord {
  holder: string;
  queue: Waiter[];
}

export class InMemoryLeases {
  private readonly records = new Map<string, LeaseRecord>();

  /** Takes the session's lease, queueing behind earlier callers (see `AcquireLeaseOptions`). */
  acquire(options: AcquireLeaseOptions): Promise<SessionLease> {
    try {
      return this.acquireResolved(resolveLeaseOptions(options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** As `acquire`, with options already checked. */
  acquireResolved(options: ResolvedLeaseOptions): Promise<SessionLease> {
    const { key, signal } = options;
    const id = JSON.stringify([key.appName, key.userId, key.sessionId]);
    const record = this.records.get(id);
    if (!record) return Promise.resolve(this.grant(id, options));
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = record.queue.indexOf(waiter);
        if (index >= 0) record.queue.splice(index, 1);
      };
      const onAbort = () => {
        leave();
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        leave();
        reject(new SessionBusyError({ ...key, waitedMs: options.waitMs }));
      }, options.waitMs);
      const waiter: Waiter = {
        grant: () => {
          leave();
          resolve(this.grant(id, options));
        },
      };
      record.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private grant(id: string, options: ResolvedLeaseOptions): SessionLease {
    const leaseId = randomUUID();
    const record = this.records.get(id);
    if (record) record.holder = leaseId;
    else this.records.set(id, { holder: leaseId, queue: [] });
    const free = () => this.free(id, leaseId);
    return startHeldLease({
      key: options.key,
      leaseId,
      ttlMs: options.ttlMs,
      renew: options.renew,
      // A holder in this process is alive while it can renew: nothing takes its lease away.
      renewRecord: undefined,
      releaseRecord: async () => free(),
      onLost: free,
    });
  }

  /** Hands the lease to the next waiter in order, or forgets the session's record. */
  private free(id: string, leaseId: string): void {
    const record = this.records.get(id);
    if (record?.holder !== leaseId) return;
    const next = record.queue.shift();
    if (next) next.grant();
    else this.records.delete(id);
  }
}
