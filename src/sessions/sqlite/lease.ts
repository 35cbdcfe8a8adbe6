/**
 * The SQLite session lease: one row per leased session in `session_leases` (holder, expiry in
 * ms since the epoch; every process on the file shares the machine's clock). Each operation is
 * one short statement, so a held lease never holds SQLite's write lock and other sessions in the
 * file are never blocked by it. A take and a release are committed with the other writes of
 * their event-loop turn (write-queue.ts: alone, a statement auto-committed). A busy database
 * (another connection writing) is never waited for synchronously: taking polls again, renewing
 * tries again at the next renewal, and releasing retries with a backoff.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SessionKey } from '../../events/types.js';
import { abortableDelay } from '../../util/abort.js';
import { SessionStoreError } from '../errors.js';
import type { InMemoryLeases } from '../in-memory-lease.js';
import type { LeaseRecordOperations } from '../lease-helpers.js';
import { acquireRecordLease } from '../record-lease.js';
import type { AcquireLeaseOptions, SessionLease } from '../session-service.js';
import type { SqliteWriteQueue } from './write-queue.js';

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

/** Another connection holds the write lock (`busy_timeout` may be 0: nothing waited). */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
  );
}

function storeError(key: SessionKey, action: string, error: unknown): SessionStoreError {
  return new SessionStoreError({
    message: `Could not ${action} the lease on session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): ${(error as Error).message}`,
    sessionId: key.sessionId,
    retryable: isBusy(error),
    cause: error,
  });
}

const RETRY_FIRST_DELAY_MS = 5;
const RETRY_MAX_DELAY_MS = 100;
/** How long a release keeps trying while the database is busy (then the row expires). */
const RELEASE_DEADLINE_MS = 30_000;

/** Runs `work` (one statement), trying again with a backoff while the database is busy. */
async function retryWhileBusy<T>(work: () => T, deadlineMs: number): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let delay = RETRY_FIRST_DELAY_MS;
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      await abortableDelay(delay, undefined);
      delay = Math.min(delay * 2, RETRY_MAX_DELAY_MS);
    }
  }
}

function leaseRecords(
  database: BetterSqlite3.Database,
  writes: SqliteWriteQueue,
  key: SessionKey,
): LeaseRecordOperations {
  const params = [key.appName, key.userId, key.sessionId] as const;
  const statements = statementsFor(database);
  return {
    tryAcquire: async (leaseId, ttlMs) => {
      const take = () => {
        const now = Date.now();
        return statements.take.run(...params, leaseId, now + ttlMs, now).changes === 1;
      };
      try {
        // Busy: not taken this time; the caller polls again until its waitMs.
        return await writes.write(take, {
          operation: 'lease take',
          key,
          waitMs: 0,
          statement: true,
          whenBusy: () => false,
          rawErrors: true,
        });
      } catch (error) {
        throw storeError(key, 'take', error);
      }
    },
    // Within a third of the ttl: the next renewal is due then.
    renew: async (leaseId, ttlMs) => {
      try {
        const renew = () =>
          statementsFor(database).renew.run(Date.now() + ttlMs, ...params, leaseId);
        return (await retryWhileBusy(renew, ttlMs / 3)).changes === 1;
      } catch (error) {
        throw storeError(key, 'renew', error);
      }
    },
    // A row left behind would hold the next holder up for a whole ttl.
    release: async (leaseId) => {
      try {
        const release = () => statements.release.run(...params, leaseId);
        await writes.write(release, {
          operation: 'lease release',
          key,
          waitMs: RELEASE_DEADLINE_MS,
          statement: true,
          rawErrors: true,
        });
      } catch (error) {
        throw storeError(key, 'release', error);
      }
    },
  };
}

export interface AcquireSqliteLeaseOptions {
  database: BetterSqlite3.Database;
  /** The connection's group commit (write-queue.ts). */
  writes: SqliteWriteQueue;
  /** The service's in-process gate. */
  local: InMemoryLeases;
  lease: AcquireLeaseOptions;
}

export function acquireSqliteLease(options: AcquireSqliteLeaseOptions): Promise<SessionLease> {
  const { appName, userId, sessionId } = options.lease;
  return acquireRecordLease({
    local: options.local,
    lease: options.lease,
    records: leaseRecords(options.database, options.writes, { appName, userId, sessionId }),
  });
}
