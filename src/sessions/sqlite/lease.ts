/**
 * The SQLite session lease: one row per leased session in `session_leases` (holder, expiry in
 * ms since the epoch; every process on the file shares the machine's clock). Each operation is
 * one short auto-committed statement, so a held lease never holds SQLite's write lock and other
 * sessions in the file are never blocked by it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SessionKey } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';
import type { InMemoryLeases } from '../in-memory-lease.js';
import type { LeaseRecordOperations } from '../lease-helpers.js';
import { acquireRecordLease } from '../record-lease.js';
import type { AcquireLeaseOptions, SessionLease } from '../session-service.js';

interface LeaseStatements {
  take: BetterSqlite3.Statement<[string, string, string, string, number, number]>;
  renew: BetterSqlite3.Statement<[number, string, string, string, string]>;
  release: BetterSqlite3.Statement<[string, string, string, string]>;
}

const prepared = new WeakMap<BetterSqlite3.Database, LeaseStatements>();

function statementsFor(database: BetterSqlite3.Database): LeaseStatements {
  let statements = prepared.get(database);
  if (!statements) {
    statements = {
      // Taken when there is no row, or the row's holder let it expire.
      take: database.prepare(`
        INSERT INTO session_leases (app_name, user_id, session_id, holder, expires_at)
        VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (app_name, user_id, session_id) DO UPDATE
          SET holder = excluded.holder, expires_at = excluded.expires_at
          WHERE session_leases.expires_at <= ?`),
      renew: database.prepare(`
        UPDATE session_leases SET expires_at = ?
        WHERE app_name = ? AND user_id = ? AND session_id = ? AND holder = ?`),
      release: database.prepare(`
        DELETE FROM session_leases
        WHERE app_name = ? AND user_id = ? AND session_id = ? AND holder = ?`),
    };
    prepared.set(database, statements);
  }
  return statements;
}

function storeError(key: SessionKey, action: string, error: unknown): SessionStoreError {
  return new SessionStoreError({
    message: `Could not ${action} the lease on session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): ${(error as Error).message}`,
    sessionId: key.sessionId,
    retryable: (error as { code?: string }).code === 'SQLITE_BUSY',
    cause: error,
  });
}

function leaseRecords(database: BetterSqlite3.Database, key: SessionKey): LeaseRecordOperations {
  const params = [key.appName, key.userId, key.sessionId] as const;
  const run = <T>(action: string, work: (statements: LeaseStatements) => T): T => {
    try {
      return work(statementsFor(database));
    } catch (error) {
      throw storeError(key, action, error);
    }
  };
  return {
    tryAcquire: async (leaseId, ttlMs) =>
      run('take', (statements) => {
        const now = Date.now();
        return statements.take.run(...params, leaseId, now + ttlMs, now).changes === 1;
      }),
    renew: async (leaseId, ttlMs) =>
      run(
        'renew',
        (statements) => statements.renew.run(Date.now() + ttlMs, ...params, leaseId).changes === 1,
      ),
    release: async (leaseId) => {
      run('release', (statements) => statements.release.run(...params, leaseId));
    },
  };
}

export interface AcquireSqliteLeaseOptions {
  database: BetterSqlite3.Database;
  /** The service's in-process gate. */
  local: InMemoryLeases;
  lease: AcquireLeaseOptions;
}

export function acquireSqliteLease(options: AcquireSqliteLeaseOptions): Promise<SessionLease> {
  const { appName, userId, sessionId } = options.lease;
  return acquireRecordLease({
    local: options.local,
    lease: options.lease,
    records: leaseRecords(options.database, { appName, userId, sessionId }),
  });
}
