/** The PostgreSQL store's options, and how its timeouts are checked. */
import type { Pool } from 'pg';
import { InvalidArgumentError } from '../../events/errors.js';
import type { SessionStoreError } from '../errors.js';
import type { SearchLanguage } from '../query-terms.js';
import type { ViewCacheOptions } from '../view-cache.js';
import { defaultConnectionTimeoutMs, defaultQueryTimeoutMs } from './pg-checkout.js';
import type { SynchronousCommit } from './synchronous-commit.js';

export interface PostgresSessionServiceOptions {
  /** How `searchEvents` stems query words: `english` (default) or `none` (docs/search.md). */
  searchLanguage?: SearchLanguage;
  /** A pool you own (not ended by `close()`). */
  pool?: Pool;
  /** Used to create a pool when `pool` is not given (libpq `PG*` variables otherwise). */
  connectionString?: string;
  /** Schema holding orrery's tables; default `public`. Created and migrated at first use. */
  schema?: string;
  /**
   * What reads do with a stored event that cannot be read. `throw` (default): the
   * `SessionStoreError` naming session and seq. `skip`: leave it out and `logger.warn`. A
   * function: called with the error, the event is left out. A corrupt checkpoint is skipped
   * for the previous one.
   */
  onCorruptEvent?: 'throw' | 'skip' | ((error: SessionStoreError) => void);
  logger?: PostgresSessionLogger;
  /**
   * The views this instance already read, kept per session: a turn's view read is then one
   * statement that returns the session row and only the events appended since (other
   * replicas' appends included). Default `{ sessions: 256, maxEvents: 100_000 }`;
   * `{ sessions: 0 }` turns it off.
   */
  viewCache?: ViewCacheOptions;
  /**
   * Deadline of each statement in ms (default 30000; 0 disables). Past it the connection is
   * closed (the server rolls the transaction back) and the operation fails with a retryable
   * `SessionStoreError`. Migrations at first use get the same deadline per statement.
   */
  queryTimeoutMs?: number;
  /** Deadline for getting a connection from the pool in ms (default 10000; 0 disables). */
  connectionTimeoutMs?: number;
  /**
   * PostgreSQL's `synchronous_commit` for orrery's own writes (appends, compactions, session
   * creation and import), set per transaction; unset (default) keeps the server's setting.
   * `'off'` acknowledges a write before its WAL reaches the disk: much faster appends, but a
   * server crash (not a client crash) can lose the last ~0.6 s of acknowledged writes. The
   * database stays consistent and `seq` gapless either way.
   */
  synchronousCommit?: SynchronousCommit;
  /**
   * `true` (default): the statements of a turn (view read, append, lease) are named prepared
   * statements, parsed and planned once per connection. `false` for a pooler in transaction
   * mode that cannot keep them (PgBouncer before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
  /**
   * `true` (default): the takes and answers that several sessions' turns send in the same
   * event-loop turn run as one Query of prepared `EXECUTE`s, one transaction and one commit
   * (docs/performance.md, "Group commit on PostgreSQL"); a lone statement runs as before.
   * Needs `preparedStatements` (off without them).
   */
  groupCommit?: boolean;
}

/** `preparedStatements` or `groupCommit`: a boolean, or the default (true). */
export function booleanOption(name: 'preparedStatements' | 'groupCommit', value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== 'boolean') {
    throw new InvalidArgumentError({
      argument: name,
      message: `must be true or false, got ${String(value)}`,
      value,
    });
  }
  return value;
}

/** pino-compatible: `logger.warn({ ...fields }, message)`. */
export interface PostgresSessionLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** A timeout option: a finite number of ms >= 0 (0 disables), or the default. */
export function timeoutOption(
  name: 'queryTimeoutMs' | 'connectionTimeoutMs',
  value: number | undefined,
) {
  if (value === undefined) {
    return name === 'queryTimeoutMs' ? defaultQueryTimeoutMs : defaultConnectionTimeoutMs;
  }
  if (!Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError({
      argument: name,
      message: `must be a number of milliseconds >= 0 (0 disables the deadline), got ${String(value)}`,
      value,
    });
  }
  return value;
}
