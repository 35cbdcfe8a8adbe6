/**
 * A session lease kept as a record in a shared store (the SQLite and PostgreSQL lease tables):
 * waiters of one process queue in order at a local gate, then the first polls the record until
 * it is free or expired. The record carries the holder and an expiry the holder keeps renewing,
 * so a holder that dies frees the session within its ttl.
 */
import { SessionBusyError } from './errors.js';
import type { InMemoryLeases } from './in-memory-lease.js';
import {
  type LeaseRecordOperations,
  pollForLease,
  resolveLeaseOptions,
  startHeldLease,
} from './lease-helpers.js';
import type { AcquireLeaseOptions, SessionLease } from './session-service.js';

export interface AcquireRecordLeaseOptions {
  /** This process's gate (one per service instance). */
  local: InMemoryLeases;
  lease: AcquireLeaseOptions;
  records: LeaseRecordOperations;
}

export async function acquireRecordLease(
  options: AcquireRecordLeaseOptions,
): Promise<SessionLease> {
  const resolved = resolveLeaseOptions(options.lease);
  const { key, ttlMs, records } = { ...resolved, records: options.records };
  const startedAt = Date.now();
  const local = await options.local.acquireResolved(resolved);
  const leaseId = local.leaseId;
  try {
    await pollForLease({
      attempt: () => records.tryAcquire(leaseId, ttlMs),
      waitMs: Math.max(0, resolved.waitMs - (Date.now() - startedAt)),
      signal: resolved.signal,
      busy: () => new SessionBusyError({ ...key, waitedMs: resolved.waitMs }),
    });
  } catch (error) {
    await local.release();
    throw error;
  }
  return startHeldLease({
    key,
    leaseId,
    ttlMs,
    renew: resolved.renew,
    renewRecord: () => records.renew(leaseId, ttlMs),
    releaseRecord: async () => {
      try {
        await records.release(leaseId);
      } finally {
        await local.release();
      }
    },
    releaseLocal: () => local.release(),
  });
}
