/**
 * The embedded default store: one SQLite file (better-sqlite3, WAL). Safe for several
 * processes on one machine: every write is a `BEGIN IMMEDIATE` transaction that reads the
 * per-session counter, so `seq` is gapless and unique, and a compaction is stored only if the
 * checkpoint it was planned from is still the checkpoint.
 *
 * Corrupted rows: every row read is checked by the append rule and against its own columns
 * (stored-row-rules.ts); a bad one is a `SessionStoreError` naming the session and `seq`
 * (`onCorruptEvent: 'throw'`, the default); the rows around it stay readable with `listEvents`
 * bounds. `onCorruptEvent: 'skip'` leaves the bad row out of every read and logs a warning
 * instead, so the rest of the session still loads. A compaction that cannot be the checkpoint is
 * passed over for the previous one, with a `checkpoint_skipped` warning in `StoredView.warnings`.
 *
 * Locks: `busy_timeout` is 0 and a busy database is waited for asynchronously (busy-wait.ts), so
 * one session waiting for another process never freezes the others; driver errors leave as typed
 * errors (sqlite-errors.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { CompactionEvent, Event, Session, SessionKey } from '../../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  SessionStoreError,
} from '../errors.js';
import { InMemoryLeases } from '../in-memory-lease.js';
import { resolveListAllSessionsOptions } from '../list-all-sessions.js';
import { resolveSearchLanguage, type SearchLanguage } from '../query-terms.js';
import { resolveSearchOptions } from '../search-text.js';
import type {
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ImportSessionOptions,
  ImportSessionResult,
  ListAllSessionsOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SearchEventsOptions,
  SearchHit,
  SessionLease,
  SessionOverview,
  SessionService,
  SessionSummary,
  StoredView,
} from '../session-service.js';
import {
  assertCompactionFits,
  assertValidNewEvent,
  assertValidSessionKey,
  assertValidState,
  resolvePageSize,
  resolveSeqBounds,
  splitState,
} from '../store-helpers.js';
import { ViewCache } from '../view-cache.js';
import { runWhileBusy } from './busy-wait.js';
import { importSqliteSession } from './import-session.js';
import { acquireSqliteLease } from './lease.js';
import { listAllSqliteSessions } from './list-all-sessions.js';
import { openSqliteDatabase, type SqliteConnection } from './open-database.js';
import { DEFAULT_BUSY_WAIT_MS, type SqliteSessionServiceOptions } from './options.js';
import { type RowReadOptions, readCheckpoint, readRows, readSqliteView } from './read-rows.js';
import { searchSqliteEvents } from './search.js';
import { SqliteSearchBacklog } from './search-backlog.js';
import { hasPendingSearchEvents, indexPendingSearchEvents } from './search-index.js';
import {
  appendSqliteEvent,
  insertSqliteEvent,
  toSqliteSession,
  writeSharedState,
} from './session-rows.js';
import type { SessionRow, SqliteStatements } from './statements.js';
import type { SqliteWriteQueue } from './write-queue.js';

/** What a store call tells the busy wait and its errors. */
interface StoreCallOptions {
  operation: string;
  key: Partial<SessionKey>;
  signal?: AbortSignal;
  creating?: boolean;
}

export {
  DEFAULT_BUSY_WAIT_MS,
  DEFAULT_SQLITE_PATH,
  type SqliteSessionLogger,
  type SqliteSessionServiceOptions,
} from './options.js';

function now(): number {
  return Date.now() / 1000;
}

export class SqliteSessionService implements SessionService {
  private readonly options: SqliteSessionServiceOptions;
  private readonly searchLanguage: SearchLanguage;
  private connection?: Promise<SqliteConnection>;
  private closed = false;
  /** Waiters of this process queue here in order before polling the lease row. */
  private readonly leases = new InMemoryLeases();
  /** Views read, per session: a turn reads only what was appended since (view-cache.ts). */
  private readonly views: ViewCache;
  /** Appended events indexed for search when idle (search-backlog.ts). */
  private readonly searchBacklog: SqliteSearchBacklog;

  constructor(options: SqliteSessionServiceOptions = {}) {
    this.options = options;
    this.searchBacklog = new SqliteSearchBacklog({ logger: options.logger });
    this.views = new ViewCache(options.viewCache);
    this.searchLanguage = resolveSearchLanguage(options.searchLanguage);
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const sessionId = options.sessionId ?? crypto.randomUUID();
    const key = { appName: options.appName, userId: options.userId, sessionId };
    assertValidSessionKey(key);
    assertValidState(options.state);
    const { statements, writes } = await this.open(options.signal);
    const parts = splitState(options.state);
    const time = now();
    const create = () => {
      if (statements.selectSession.get(key.appName, key.userId, sessionId)) {
        throw new SessionAlreadyExistsError(key);
      }
      statements.insertSession.run(
        key.appName,
        key.userId,
        sessionId,
        JSON.stringify(parts.session),
        time,
        time,
      );
      writeSharedState(statements, key, parts.app, parts.user, time);
      const row = statements.selectSession.get(key.appName, key.userId, sessionId)!;
      return toSqliteSession(statements, row, []);
    };
    return this.write(writes, create, {
      operation: 'createSession',
      key,
      signal: options.signal,
      creating: true,
    });
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    assertValidSessionKey(options);
    const { statements, transaction } = await this.open(options.signal);
    const work = () => {
      const row = statements.selectSessionWithState.get(
        options.appName,
        options.userId,
        options.sessionId,
      );
      if (!row) return undefined;
      let events: Event[];
      if (options.events === 'full') {
        // Row by row: each row's JSON text can be freed once parsed, instead of holding every
        // row's text and every event at once (100k events: +132 MB heap with .all()).
        const rows = statements.pageAsc.iterate(
          options.appName,
          options.userId,
          options.sessionId,
          0,
          Number.MAX_SAFE_INTEGER,
          -1,
        );
        events = readRows(rows, this.rowOptions(options));
      } else {
        const view = this.readView(statements, row, options);
        events = view.checkpoint ? [view.checkpoint, ...view.tail] : view.tail;
      }
      return toSqliteSession(statements, row, events);
    };
    return this.run(() => transaction.deferred(work), {
      operation: 'getSession',
      key: options,
      signal: options.signal,
    });
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    assertValidSessionKey(options);
    const { statements, transaction } = await this.open(options.signal);
    const work = () => {
      const row = this.requireSession(statements, options);
      return this.readView(statements, row, options);
    };
    return this.run(() => transaction.deferred(work), {
      operation: 'loadView',
      key: options,
      signal: options.signal,
    });
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    assertValidSessionKey(options);
    const limit = resolvePageSize(options.limit);
    const { afterSeq, beforeSeq } = resolveSeqBounds(options);
    const { database, statements } = await this.open(options.signal);
    const work = database.transaction(() => {
      this.requireSession(statements, options);
      const statement = options.order === 'desc' ? statements.pageDesc : statements.pageAsc;
      const rows = statement.all(
        options.appName,
        options.userId,
        options.sessionId,
        afterSeq,
        beforeSeq,
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        events: readRows(page, this.rowOptions(options)),
        nextCursor: rows.length > limit && last ? last.seq : undefined,
      };
    });
    return this.run(() => work.deferred(), {
      operation: 'listEvents',
      key: options,
      signal: options.signal,
    });
  }

  async appendEvent(options: AppendEventOptions): Promise<Event> {
    assertValidSessionKey(options);
    assertValidNewEvent(options.event, { kind: 'event' });
    const { database, statements, writes } = await this.open(options.signal);
    const work = () => appendSqliteEvent(statements, options, options.event);
    // Committed with the other writes of this event-loop turn (write-queue.ts).
    const appended = await this.write(writes, work, {
      operation: 'appendEvent',
      key: options,
      signal: options.signal,
    });
    this.searchBacklog.appended(database);
    // Committed: the next view read finds it cached, not as a row to read, parse and check
    // again. The cache gets its own copy (the caller may change the returned event).
    if (this.views.peekLastSeq(options) === appended.event.seq - 1) {
      const copy = JSON.parse(appended.json) as Event;
      copy.seq = appended.event.seq;
      this.views.appended(options, appended.createdAt, copy);
    }
    return appended.event;
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    assertValidSessionKey(options);
    assertValidNewEvent(options.event, { kind: 'compaction' });
    const { statements, writes } = await this.open(options.signal);
    const work = () => {
      const row = this.requireSession(statements, options);
      assertCompactionFits(options.event, row.last_seq + 1);
      // The checkpoint the view would use (same rule, same skips), so a compaction planned
      // from a view that passed over an impossible checkpoint is not a conflict forever.
      const actual =
        readCheckpoint(statements, row.last_seq, this.rowOptions(options)).checkpoint?.seq ?? null;
      if (actual !== options.expectedCheckpointSeq) {
        throw new CompactionConflictError({
          sessionId: options.sessionId,
          expectedCheckpointSeq: options.expectedCheckpointSeq,
          actualCheckpointSeq: actual,
        });
      }
      return insertSqliteEvent(statements, options, row, options.event).event as CompactionEvent;
    };
    return this.write(writes, work, {
      operation: 'appendCompaction',
      key: options,
      signal: options.signal,
    });
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    assertValidSessionKey({ ...options, sessionId: '-' });
    const { statements } = await this.open(options.signal);
    const rows = await this.run(
      () => statements.listSessions.all(options.appName, options.userId),
      {
        operation: 'listSessions',
        key: options,
        signal: options.signal,
      },
    );
    return rows.map((row) => ({
      appName: row.app_name,
      userId: row.user_id,
      sessionId: row.id,
      lastUpdateTime: row.updated_at,
      eventCount: row.event_count,
    }));
  }

  /** Every user's sessions (or those the filters keep), newest first, in one statement. */
  async listAllSessions(options: ListAllSessionsOptions): Promise<SessionOverview[]> {
    const resolved = resolveListAllSessionsOptions(options);
    const { database } = await this.open(options.signal);
    return this.run(() => listAllSqliteSessions(database, resolved), {
      operation: 'listAllSessions',
      key: { appName: resolved.appName },
      signal: options.signal,
    });
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    assertValidSessionKey(options);
    const { statements, writes } = await this.open(options.signal);
    this.views.forget(options);
    const work = () => {
      statements.deleteEvents.run(options.appName, options.userId, options.sessionId);
      statements.deleteSession.run(options.appName, options.userId, options.sessionId);
    };
    await this.write(writes, work, {
      operation: 'deleteSession',
      key: options,
      signal: options.signal,
    });
  }

  /**
   * One invocation at a time per session, across processes (see `lease.ts`); with `exclusive`
   * (no other process can open the file) within this process only, with no row written.
   */
  async acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
    const { database, writes } = await this.open(options.signal);
    if (this.options.exclusive) return this.leases.acquire(options);
    return acquireSqliteLease({ database, writes, local: this.leases, lease: options });
  }

  /** All or nothing, on a connection of its own (see `import-session.ts`). */
  async importSession(options: ImportSessionOptions): Promise<ImportSessionResult> {
    const { database } = await this.open(options.signal);
    return importSqliteSession({
      database,
      busyTimeoutMs: this.options.busyTimeoutMs ?? DEFAULT_BUSY_WAIT_MS,
      synchronous: this.options.synchronous ?? 'normal',
      exclusive: this.options.exclusive ?? false,
      import: options,
    });
  }

  /** FTS5 with BM25 over the user's events (see `search.ts`). */
  async searchEvents(options: SearchEventsOptions): Promise<SearchHit[]> {
    const search = resolveSearchOptions(options);
    const { database, statements } = await this.open(options.signal);
    const key = { appName: search.appName, userId: search.userId, sessionId: search.sessionId };
    // Events not indexed yet are indexed first, so the search finds every event appended before
    // it, by any connection (search-index.ts).
    const flush = database.transaction(() => indexPendingSearchEvents(database));
    await this.run(() => hasPendingSearchEvents(database) && flush.immediate(), {
      operation: 'searchEvents',
      key,
      signal: options.signal,
    });
    const work = database.transaction(() => {
      if (key.sessionId !== undefined) this.requireSession(statements, key as SessionKey);
      return searchSqliteEvents({
        database,
        language: this.searchLanguage,
        search,
        rowOptions: (sessionId) => this.rowOptions({ ...key, sessionId }),
      });
    });
    return this.run(() => work.deferred(), {
      operation: 'searchEvents',
      key,
      signal: options.signal,
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.searchBacklog.close();
    const connection = this.connection;
    this.connection = undefined;
    if (!connection) return;
    const opened = await connection.catch(() => undefined);
    // What was queued is stored before the database closes.
    opened?.writes.close();
    if (!this.options.database) opened?.database.close();
  }

  /** The open database (opened, configured and migrated on first use). */
  async getDatabase(options: { signal?: AbortSignal } = {}): Promise<BetterSqlite3.Database> {
    return (await this.open(options.signal)).database;
  }

  private async open(signal: AbortSignal | undefined): Promise<SqliteConnection> {
    signal?.throwIfAborted();
    if (this.closed) throw new SessionStoreError({ message: 'SqliteSessionService is closed' });
    this.connection ??= openSqliteDatabase(this.options).catch((error: unknown) => {
      this.connection = undefined; // the next call tries again
      throw error;
    });
    const connection = await this.connection;
    signal?.throwIfAborted();
    return connection;
  }

  /**
   * Checkpoint + tail as stored at `row.last_seq`: from the cache when nothing was appended
   * since this instance last read it, the cache and the rows appended since, or read whole.
   * The session row read in the caller's snapshot says what the cache lacks (view-cache.ts).
   */
  private readView(statements: SqliteStatements, row: SessionRow, key: SessionKey): StoredView {
    const cached = this.views.lookup(key, row.created_at, row.last_seq);
    if (cached.kind === 'hit') return cached.view;
    if (cached.kind === 'behind') {
      const rows = statements.pageAsc.iterate(
        key.appName,
        key.userId,
        key.sessionId,
        cached.afterSeq,
        Number.MAX_SAFE_INTEGER,
        -1,
      );
      const view = this.views.extend(
        key,
        row.created_at,
        readRows(rows, this.rowOptions(key)),
        row.last_seq,
      );
      if (view) return view;
    }
    const view = readSqliteView(statements, row.last_seq, this.rowOptions(key));
    this.views.remember(key, row.created_at, view);
    return view;
  }

  private rowOptions(key: SessionKey): RowReadOptions {
    return {
      key: { appName: key.appName, userId: key.userId, sessionId: key.sessionId },
      onCorruptEvent: this.options.onCorruptEvent,
      logger: this.options.logger,
    };
  }

  /** Runs a synchronous transaction, waiting asynchronously while the database is busy. */
  private run<T>(work: () => T, options: StoreCallOptions): Promise<T> {
    return runWhileBusy(work, this.busyOptions(options));
  }

  /** A write transaction, committed with the other writes of this event-loop turn. */
  private write<T>(writes: SqliteWriteQueue, work: () => T, options: StoreCallOptions): Promise<T> {
    return writes.write(work, this.busyOptions(options));
  }

  /** The key's three fields only (the caller's options object may hold much more). */
  private busyOptions(options: StoreCallOptions) {
    return {
      ...options,
      key: {
        appName: options.key.appName,
        userId: options.key.userId,
        sessionId: options.key.sessionId,
      },
      waitMs: this.options.busyTimeoutMs ?? DEFAULT_BUSY_WAIT_MS,
    };
  }

  private requireSession(statements: SqliteStatements, key: SessionKey): SessionRow {
    const row = statements.selectSession.get(key.appName, key.userId, key.sessionId);
    if (!row) throw new SessionNotFoundError(key);
    return row;
  }
}
