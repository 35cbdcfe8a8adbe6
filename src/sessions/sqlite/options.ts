/** The SQLite store's options and defaults. */
import type BetterSqlite3 from 'better-sqlite3';
import type { SearchLanguage } from '../query-terms.js';
import type { ViewCacheOptions } from '../view-cache.js';

/** pino-compatible: `logger.warn({ ...fields }, message)`. */
export interface SqliteSessionLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SqliteSessionServiceOptions {
  /** How `searchEvents` stems query words: `english` (default) or `none` (docs/search.md). */
  searchLanguage?: SearchLanguage;
  /** Database file; default `./.orrery/orrery.db` (the directory is created). */
  path?: string;
  /** An open better-sqlite3 database to use instead of `path`; `close()` leaves it open. */
  database?: BetterSqlite3.Database;
  /**
   * How long an operation keeps trying while another connection holds the lock, in ms; default
   * 5000. The wait never blocks the event loop (timers, other sessions run on); past it the
   * operation throws `SessionStoreError` with `retryable: true`; the caller's signal ends it at once.
   */
  busyTimeoutMs?: number;
  /**
   * `normal` (default): WAL with `synchronous=NORMAL`, durable across process crashes; a power
   * loss may drop the last commits but never corrupts. `full`: fsync on every commit.
   */
  synchronous?: 'normal' | 'full';
  /** What reads do with an event row whose JSON is corrupted (see the file comment). */
  onCorruptEvent?: 'throw' | 'skip';
  logger?: SqliteSessionLogger;
  /**
   * The views this instance already read, kept per session so a turn reads only the events
   * appended since (checked against the session's stored `lastSeq` on every read, so writes by
   * other processes are seen). Default `{ sessions: 256, maxEvents: 100_000 }`; `{ sessions: 0 }`
   * turns it off.
   */
  viewCache?: ViewCacheOptions;
  /**
   * Only this process (and only this store instance) opens the file: the connection holds
   * SQLite's lock on it for as long as the store is open (`PRAGMA locking_mode = EXCLUSIVE`, set
   * before the first read), so another connection or process gets `SQLITE_BUSY` on any read or
   * write, and opening fails while another one holds the file. Session leases are then taken in
   * this process only: no lease row is written or deleted each turn. Imports run on this
   * connection (their events are read and checked first, as for `:memory:`). Default `false`:
   * any number of processes share the file and leases are rows (docs/performance.md).
   */
  exclusive?: boolean;
}

export const DEFAULT_SQLITE_PATH = './.orrery/orrery.db';

/** Default `busyTimeoutMs`. */
export const DEFAULT_BUSY_WAIT_MS = 5000;
