/**
 * The PostgreSQL session lease: one row per leased session in `orrery_session_leases` (holder,
 * expiry on the server's clock, so runner hosts need not agree on the time). Each operation is
 * one auto-committed statement on any pooled connection.
 *
 * The row stays when the lease is released: the release marks it free (no holder, expired at
 * `-infinity`) and the next take updates it. Neither changes an indexed column, so both are
 * in-place (HOT) updates: no index entry, no dead row for VACUUM per turn, where an insert and
 * a delete cost a B-tree insert and a dead tuple each time.
 *
 * Why a table and not a session-level advisory lock: the lock belongs to one connection, so
 * each held lease would pin a pooled connection for the whole invocation (a pool of 10 would
 * run at most 10 sessions at once, and a poolers' transaction mode cannot hold it at all), and
 * `pg_try_advisory_lock` is reentrant on one connection, so two runners of one process sharing
 * a connection would both "hold" it. A row needs no connection between statements; a dead
 * holder stops renewing and its row expires within the ttl.
 */
import type { Pool } from 'pg';
import type { SessionKey } from '../../events/types.js';
import type { InMemoryLeases } from '../in-memory-lease.js';
import type { LeaseRecordOperations } from '../lease-helpers.js';
import { acquireRecordLease } from '../record-lease.js';
import type { AcquireLeaseOptions, SessionLease } from '../session-service.js';
import { keyParams, wrapError } from './key-and-errors.js';
import { quoteIdentifier } from './migrations.js';
import { type Statement, statement, withValues } from './queries.js';

export interface LeaseQueries {
  take: Statement;
  renew: Statement;
  release: Statement;
}

/** The lease statements of a schema (named prepared statements unless `prepared` is off). */
export function buildLeaseQueries(schema: string, prepared = true): LeaseQueries {
  const table = `${quoteIdentifier(schema)}.orrery_session_leases`;
  const expiry = `clock_timestamp() + $5::integer * interval '1 millisecond'`;
  const texts = {
    // Taken when there is no row, or the row's holder let it expire.
    take: `INSERT INTO ${table} AS lease (app_name, user_id, session_id, holder, expires_at)
      VALUES ($1, $2, $3, $4, ${expiry})
      ON CONFLICT (app_name, user_id, session_id) DO UPDATE
        SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE lease.expires_at <= clock_timestamp()
      RETURNING holder`,
    renew: `UPDATE ${table} SET expires_at = ${expiry}
      WHERE app_name = $1 AND user_id = $2 AND session_id = $3 AND holder = $4`,
    // '' is no holder's id (lease ids are never empty), so a released holder cannot renew.
    // The release's commit does not wait for the WAL flush (its transaction only): a release
    // lost in a server crash leaves the row as a crashed holder does, free at its expiry.
    release: `WITH commit_mode AS (
        SELECT set_config('synchronous_commit', 'off', true) AS mode)
      UPDATE ${table} SET holder = '', expires_at = '-infinity'
      WHERE app_name = $1 AND user_id = $2 AND session_id = $3 AND holder = $4
        AND (SELECT mode FROM commit_mode) IS NOT NULL`,
  };
  return {
    take: statement(texts.take, prepared),
    renew: statement(texts.renew, prepared),
    release: statement(texts.release, prepared),
  };
}

function leaseRecords(
  pool: Pool,
  queries: LeaseQueries,
  key: SessionKey,
  take: LeaseRecordOperations['tryAcquire'] | undefined,
): LeaseRecordOperations {
  const run = async (query: Statement, values: unknown[]): Promise<number> => {
    try {
      return (await pool.query(withValues(query, values))).rowCount ?? 0;
    } catch (error) {
      throw wrapError(error, key);
    }
  };
  return {
    tryAcquire:
      take ??
      (async (leaseId, ttlMs) =>
        (await run(queries.take, [...keyParams(key), leaseId, ttlMs])) === 1),
    renew: async (leaseId, ttlMs) =>
      (await run(queries.renew, [...keyParams(key), leaseId, ttlMs])) === 1,
    release: async (leaseId) => {
      await run(queries.release, [...keyParams(key), leaseId]);
    },
  };
}

export interface AcquirePostgresLeaseOptions {
  pool: Pool;
  queries: LeaseQueries;
  /** The service's in-process gate. */
  local: InMemoryLeases;
  lease: AcquireLeaseOptions;
  /**
   * Takes the lease record in place of the plain `take` statement (the service's take that
   * reads the session's view in the same statement); `true` when taken.
   */
  take?: LeaseRecordOperations['tryAcquire'];
}

export function acquirePostgresLease(options: AcquirePostgresLeaseOptions): Promise<SessionLease> {
  const { appName, userId, sessionId } = options.lease;
  return acquireRecordLease({
    local: options.local,
    lease: options.lease,
    records: leaseRecords(
      options.pool,
      options.queries,
      { appName, userId, sessionId },
      options.take,
    ),
  });
}
