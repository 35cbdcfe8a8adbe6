/**
 * Indexing appended events when the store is idle (search-index.ts: an append indexes nothing).
 * The first append after the backlog was emptied starts a timer (`SQLITE_SEARCH_IDLE_MS`); when
 * it fires, the events waiting are indexed at most `SQLITE_SEARCH_BATCH` to a write
 * transaction, one transaction per event-loop turn, until none wait. A search indexes whatever
 * is still waiting first, so this only moves the work out of the appends and the searches.
 *
 * Never inside a transaction of the caller's on this connection (`inTransaction`: later), never
 * waiting for another connection's lock (busy: later). The timer does not keep the process
 * alive and `close()` stops it: events not indexed yet wait in the file (above the watermark)
 * for the next search, import or idle time of any process. Nothing is lost; the index is derived
 * from the events.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteSessionLogger } from './options.js';
import { hasPendingSearchEvents, indexPendingSearchEvents } from './search-index.js';
import { isBusyError } from './sqlite-errors.js';

/** How long after an append the events waiting are indexed, in ms. */
export const SQLITE_SEARCH_IDLE_MS = 100;
/** Events indexed per write transaction when idle (0.04-0.08 ms each: the lock held 10-20 ms). */
export const SQLITE_SEARCH_BATCH = 256;

export class SqliteSearchBacklog {
  private timer?: NodeJS.Timeout;
  private database?: BetterSqlite3.Database;
  private closed = false;

  constructor(private readonly options: { logger?: SqliteSessionLogger } = {}) {}

  /** An event was appended (and committed) on `database`. */
  appended(database: BetterSqlite3.Database): void {
    if (this.timer || this.closed) return;
    this.database = database;
    this.schedule(SQLITE_SEARCH_IDLE_MS);
  }

  /** Stops indexing; what waits stays in the file for the next search or process. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => this.indexBatch(), delayMs);
    this.timer.unref();
  }

  private indexBatch(): void {
    this.timer = undefined;
    const database = this.database;
    if (this.closed || !database?.open) return;
    if (database.inTransaction) {
      this.schedule(SQLITE_SEARCH_IDLE_MS);
      return;
    }
    try {
      if (!hasPendingSearchEvents(database)) return;
      database
        .transaction(() => indexPendingSearchEvents(database, { limit: SQLITE_SEARCH_BATCH }))
        .immediate();
      this.schedule(0);
    } catch (error) {
      if (isBusyError(error)) {
        this.schedule(SQLITE_SEARCH_IDLE_MS);
        return;
      }
      this.options.logger?.warn(
        { error: (error as Error).message },
        'SQLite search: indexing appended events failed; the next search indexes them',
      );
    }
  }
}
