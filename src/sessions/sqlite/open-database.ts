/**
 * Opens the SQLite store's database: the file (its directory created) or the caller's handle,
 * WAL, the `synchronous` level, migrations, prepared statements (docs/architecture.md,
 * Storage). Waits for the write lock asynchronously (busy-wait.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SessionStoreError } from '../errors.js';
import { runWhileBusy } from './busy-wait.js';
import { loadSqliteDriver } from './load-driver.js';
import { migrateSqlite } from './migrations.js';
import {
  DEFAULT_BUSY_WAIT_MS,
  DEFAULT_SQLITE_PATH,
  type SqliteSessionServiceOptions,
} from './options.js';
import { prepareStatements, type SqliteStatements } from './statements.js';
import { SqliteWriteQueue } from './write-queue.js';

export interface SqliteConnection {
  database: BetterSqlite3.Database;
  statements: SqliteStatements;
  /** Writes of one event-loop turn, committed together (write-queue.ts). */
  writes: SqliteWriteQueue;
  /**
   * Runs its argument in a transaction (`.deferred(work)` for a consistent read). Made once:
   * the driver's `transaction()` builds five wrappers a call.
   */
  transaction: { deferred<T>(work: () => T): T };
}

/** The open, configured and migrated database; a handle it opened is closed on failure. */
export async function openSqliteDatabase(
  options: SqliteSessionServiceOptions,
): Promise<SqliteConnection> {
  let database = options.database;
  if (!database) {
    const Driver = await loadSqliteDriver();
    const path = options.path ?? DEFAULT_SQLITE_PATH;
    if (path !== ':memory:' && !path.startsWith('file:'))
      mkdirSync(dirname(path), { recursive: true });
    database = new Driver(path);
  }
  try {
    // No synchronous busy wait: it would block the event loop (see busy-wait.ts). Switching
    // to WAL and migrating need the write lock, so they wait here the asynchronous way.
    database.pragma('busy_timeout = 0');
    const opened = database;
    const wait = { key: {}, waitMs: options.busyTimeoutMs ?? DEFAULT_BUSY_WAIT_MS };
    // Before WAL is entered: the WAL index then lives in this process's memory, and the first
    // read below (switching to WAL, migrating) takes the lock this connection keeps.
    if (options.exclusive) database.pragma('locking_mode = EXCLUSIVE');
    await runWhileBusy(() => opened.pragma('journal_mode = WAL'), { ...wait, operation: 'open' });
    database.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    await runWhileBusy(() => migrateSqlite(opened), { ...wait, operation: 'migrate' });
    // A write takes the exclusive lock now, not at the first append: from here on no other
    // connection reads or writes the file (an up-to-date schema makes migrating a read only).
    if (options.exclusive)
      await runWhileBusy(() => opened.exec('BEGIN IMMEDIATE; COMMIT'), {
        ...wait,
        operation: 'open',
      });
    return {
      database,
      statements: prepareStatements(database),
      writes: new SqliteWriteQueue(database),
      transaction: database.transaction((work: () => unknown) => work()) as {
        deferred<T>(work: () => T): T;
      },
    };
  } catch (error) {
    if (!options.database) database.close();
    if (SessionStoreError.isInstance(error)) throw error;
    throw new SessionStoreError({
      message: `Could not open SQLite session store '${database.name}': ${(error as Error).message}`,
      cause: error,
    });
  }
}
