/**
 * Indexing appended events when the store is idle (search-index.ts: an append indexes nothing).
 * An append starts a timer (`SQLITE_SEARCH_IDLE_MS`); when it fires and no append came since it
 * was set, the events waiting are indexed at most `SQLITE_SEARCH_BATCH` to a write
 * transaction, one transaction per event-loop turn, until none wait. While appends keep coming
 * it waits again, unless `SQLITE_SEARCH_MAX_BACKLOG` of them wait: then it indexes them in full
 * batches anyway, so a busy store's backlog stays bounded. Indexing a few events at a time
 * between appends would cost what indexing each append did (a new FTS5 segment per
 * transaction: 3x an append), so it never chases the appends. A search indexes whatever is
 * still waiting first, so this only moves the work out of the appends and the searches.
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
/** Appends waiting at which they are indexed without waiting for an idle moment. */
export const SQLITE_SEARCH_MAX_BACKLOG = 4 * SQLITE_SEARCH_BATCH;

export class SqliteSearchBacklog {
  private timer?: NodeJS.Timeout;
  private database?: BetterSqlite3.Database;
  private closed = false;
  /** An append came since the timer was set: not idle yet. */
  private appendedSinceTimer = false;
  /** Appends on this connection not indexed yet, as far as this instance knows. */
  private waiting = 0;
  /** Batches indexed since the last checkpoint this instance ran. */
  private indexedSinceCheckpoint = false;

  constructor(private readonly options: { logger?: SqliteSessionLogger } = {}) {}

  /** An event was appended (and committed) on `database`. */
  appended(database: BetterSqlite3.Database): void {
    if (this.closed) return;
    this.database = database;
    this.waiting++;
    if (this.timer) {
      this.appendedSinceTimer = true;
      return;
    }
    this.schedule(SQLITE_SEARCH_IDLE_MS);
  }

  /** Stops indexing; what waits stays in the file for the next search or process. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    this.appendedSinceTimer = false;
    this.timer = setTimeout(() => this.indexBatch(), delayMs);
    this.timer.unref();
  }

  private indexBatch(): void {
    this.timer = undefined;
    const database = this.database;
    if (this.closed || !database?.open) return;
    const busy = this.appendedSinceTimer && this.waiting < SQLITE_SEARCH_MAX_BACKLOG;
    if (database.inTransaction || busy) {
      this.schedule(SQLITE_SEARCH_IDLE_MS);
      return;
    }
    try {
      if (!hasPendingSearchEvents(database)) {
        this.waiting = 0;
        if (this.indexedSinceCheckpoint) checkpointIndexing(database);
        this.indexedSinceCheckpoint = false;
        return;
      }
      database
        .transaction(() => indexPendingSearchEvents(database, { limit: SQLITE_SEARCH_BATCH }))
        .immediate();
      this.indexedSinceCheckpoint = true;
      this.waiting = Math.max(0, this.waiting - SQLITE_SEARCH_BATCH);
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

/**
 * Copies the WAL's pages into the database now, while idle: the index's pages written by the
 * batches, which the next appends would otherwise copy when one of them crosses SQLite's
 * auto-checkpoint, paying for the indexing there (docs/search.md, migration 6). PASSIVE: it
 * never waits for a reader or a writer; it copies what it can.
 */
export function checkpointIndexing(database: BetterSqlite3.Database): void {
  database.pragma('wal_checkpoint(PASSIVE)');
}
