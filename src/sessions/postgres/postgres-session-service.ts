/**
 * PostgreSQL `SessionService` (docs/architecture.md#storage): many runner processes, one database.
 * `seq` is assigned by a row-locking `UPDATE ... RETURNING` in the insert statement, compactions
 * are conditional under `SELECT ... FOR UPDATE`, and the active view is read as checkpoint + tail
 * in one statement whose cost does not grow with the history. `pg` is loaded lazily.
 */
import type { ViewWarning } from '../../compaction/view.js';
import type { CompactionEvent, Event, Session, SessionKey } from '../../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  SessionStoreError,
} from '../errors.js';
import { prepareImport } from '../import-events.js';
import { InMemoryLeases } from '../in-memory-lease.js';
import { resolveListAllSessionsOptions } from '../list-all-sessions.js';
import { resolveSearchLanguage, type SearchLanguage } from '../query-terms.js';
import type {
  AcquireLeaseAndAppendOptions,
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventAndReleaseLeaseOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ImportSessionOptions,
  ImportSessionResult,
  LeasedAppend,
  LeasedSession,
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
import { appendAndRelease } from './append-and-release.js';
import { PostgresConnection } from './connection.js';
import { headerStamp, PostgresEventReader, type ViewRow } from './event-reader.js';
import {
  appendPostgresEvent,
  type InsertedPostgresEvent,
  insertPostgresEvent,
  upsertScopedState,
} from './event-writer.js';
import { importPostgresSession } from './import-session.js';
import { assertJsonbStorable } from './jsonb-state.js';
import { keyParams, pickKey, validateKey } from './key-and-errors.js';
import { acquirePostgresLease, buildLeaseQueries, type LeaseQueries } from './lease.js';
import { leaseAndAppend, leaseThenAppend } from './lease-and-append.js';
import { type LeaseContext, leaseAndView } from './lease-and-view.js';
import {
  buildListAllSessionsStatement,
  type OverviewRow,
  toSessionOverviews,
} from './list-all-sessions.js';
import { quoteIdentifier } from './migrations.js';
import { booleanOption, type PostgresSessionServiceOptions, timeoutOption } from './options.js';
import { buildQueries, type Queries } from './queries.js';
import { type EventRow, prepareEventRow, rowToEvent } from './rows.js';
import { buildSearchStatements, type SearchStatements } from './search.js';
import { searchStoredEvents } from './search-events.js';
import { type SynchronousCommit, synchronousCommitOption } from './synchronous-commit.js';
import { TERM_SHARES_SQL, TermShares, type TermSharesRow } from './term-shares.js';

export type { PostgresSessionLogger, PostgresSessionServiceOptions } from './options.js';

export class PostgresSessionService implements SessionService {
  readonly schema: string;
  private readonly queries: Queries;
  private readonly leaseQueries: LeaseQueries;
  /** Waiters of this process queue here in order before polling the lease row. */
  private readonly leases = new InMemoryLeases();
  private searchStatements?: SearchStatements;
  /** Common lexemes' shares of the events (ANALYZE's statistics), read once a minute. */
  private readonly termShares: TermShares;
  private readonly synchronousCommit?: SynchronousCommit;
  private readonly connection: PostgresConnection;
  private readonly reader: PostgresEventReader;
  /** Views read, per session: a turn reads only what was appended since (view-cache.ts). */
  private readonly views: ViewCache;

  private readonly searchLanguage: SearchLanguage;

  constructor(options: PostgresSessionServiceOptions = {}) {
    this.schema = options.schema ?? 'public';
    if (this.schema.length === 0 || this.schema.length > 63) {
      throw new SessionStoreError({
        message: `Invalid PostgreSQL schema name '${this.schema}': 1 to 63 characters`,
      });
    }
    const prepared = booleanOption('preparedStatements', options.preparedStatements);
    this.queries = buildQueries(this.schema, prepared);
    this.leaseQueries = buildLeaseQueries(this.schema, prepared);
    this.searchLanguage = resolveSearchLanguage(options.searchLanguage);
    this.synchronousCommit = synchronousCommitOption(options.synchronousCommit);
    this.connection = new PostgresConnection({
      service: options,
      schema: this.schema,
      queryTimeoutMs: timeoutOption('queryTimeoutMs', options.queryTimeoutMs),
      connectionTimeoutMs: timeoutOption('connectionTimeoutMs', options.connectionTimeoutMs),
      synchronousCommit: this.synchronousCommit,
      setCommitModeSql: this.queries.setCommitMode,
      groupCommit: prepared && booleanOption('groupCommit', options.groupCommit),
    });
    this.reader = new PostgresEventReader(this.connection, this.queries, options);
    this.views = new ViewCache(options.viewCache);
    this.termShares = new TermShares({
      read: (signal) =>
        this.connection.query<TermSharesRow>(
          { appName: '', userId: '', sessionId: '' },
          signal,
          TERM_SHARES_SQL,
          [this.schema],
          { operation: 'searchEvents' },
        ),
    });
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const sessionId = options.sessionId ?? crypto.randomUUID();
    const key = { appName: options.appName, userId: options.userId, sessionId };
    validateKey(key);
    assertValidState(options.state);
    const scoped = splitState(options.state);
    assertJsonbStorable(scoped, 'state');
    const now = Date.now() / 1000;
    return this.connection.transaction(
      key,
      options.signal,
      async (client) => {
        const inserted = await client.query(this.queries.createSession, [
          ...keyParams(key),
          JSON.stringify(scoped.session),
          now,
        ]);
        if (inserted.rowCount === 0) {
          throw new SessionAlreadyExistsError(key);
        }
        await upsertScopedState({ client, queries: this.queries, key, scoped, now });
        const rows = await client.query<ViewRow>(this.queries.header, keyParams(key));
        return { ...key, ...this.reader.readHeader(rows.rows[0]), events: [] };
      },
      'createSession',
    );
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    const key = pickKey(options);
    const full = options.events === 'full';
    if (!full) {
      const read = await this.readView(key, options.signal, 'getSession');
      if (!read) return undefined;
      const { checkpoint, tail } = read.view;
      const events = checkpoint ? [checkpoint, ...tail] : tail;
      return { ...key, ...this.reader.readHeader(read.header), events };
    }
    const rows = await this.connection.query<ViewRow>(
      key,
      options.signal,
      this.queries.full,
      keyParams(key),
      { operation: 'getSession' },
    );
    const header = rows[0];
    if (header?.part !== 0) return undefined;
    const events = this.reader.parseRows(rows.slice(1), key);
    return { ...key, ...this.reader.readHeader(header), events };
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    const key = pickKey(options);
    const read = await this.readView(key, options.signal, 'loadView');
    if (!read) throw new SessionNotFoundError(key);
    return read.view;
  }

  /**
   * Checkpoint + tail with the session's header row, or `undefined` when the session does not
   * exist. With a view of the session cached (view-cache.ts), one statement reads the header
   * and only the rows appended since; a compaction among them, another identity (the session
   * was deleted and created again) or a missing entry reads the view whole.
   */
  private async readView(
    key: SessionKey,
    signal: AbortSignal | undefined,
    operation: string,
  ): Promise<{ header: ViewRow; view: StoredView } | undefined> {
    const afterSeq = this.views.peekLastSeq(key);
    if (afterSeq !== undefined) {
      const rows = await this.connection.query<ViewRow>(
        key,
        signal,
        this.queries.viewSince,
        [...keyParams(key), afterSeq],
        { operation },
      );
      const header = rows[0];
      if (header?.part !== 0) {
        this.views.forget(key);
        return undefined;
      }
      const stamp = headerStamp(header);
      const cached = this.views.lookup(key, stamp, Number(header.seq));
      if (cached.kind === 'hit') return { header, view: cached.view };
      // `afterSeq` still the cached one: no other read of this session moved it meanwhile.
      if (cached.kind === 'behind' && cached.afterSeq === afterSeq) {
        const added = this.reader.parseRows(rows.slice(1), key);
        const view = this.views.extend(key, stamp, added, Number(header.seq));
        if (view) return { header, view };
      }
    }
    const warnings: ViewWarning[] = [];
    const rows = await this.reader.readViewRows(key, signal, operation, warnings);
    const header = rows[0];
    if (header?.part !== 0) return undefined;
    const checkpointRow = rows[1]?.part === 1 ? rows[1] : undefined;
    const tail = this.reader.parseRows(rows.slice(checkpointRow ? 2 : 1), key);
    // readViewRows has checked the checkpoint row already (or thrown).
    const checkpoint = checkpointRow
      ? (rowToEvent(checkpointRow, key) as CompactionEvent)
      : undefined;
    const view: StoredView = { checkpoint, tail, lastSeq: Number(header.seq) };
    if (warnings.length > 0) view.warnings = warnings;
    this.views.remember(key, headerStamp(header), view);
    return { header, view };
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    const key = pickKey(options);
    const limit = resolvePageSize(options.limit);
    const { afterSeq, beforeSeq } = resolveSeqBounds(options);
    const descending = options.order === 'desc';
    const rows = await this.connection.query<EventRow>(
      key,
      options.signal,
      descending ? this.queries.listEventsDesc : this.queries.listEventsAsc,
      [...keyParams(key), afterSeq, beforeSeq, limit + 1],
      { operation: 'listEvents' },
    );
    if (rows.length === 0) {
      const exists = await this.connection.query(
        key,
        options.signal,
        this.queries.sessionExists,
        [...keyParams(key)],
        { operation: 'listEvents' },
      );
      if (exists.length === 0) throw new SessionNotFoundError(key);
    }
    const page = rows.slice(0, limit);
    const events = this.reader.parseRows(page, key);
    const last = page[page.length - 1];
    return rows.length > limit && last ? { events, nextCursor: Number(last.seq) } : { events };
  }

  async appendEvent(options: AppendEventOptions): Promise<Event> {
    const key = pickKey(options);
    assertValidNewEvent(options.event, { kind: 'event' });
    const row = prepareEventRow(options.event);
    const inserted = row.touchesSharedState
      ? await this.connection.transaction(
          key,
          options.signal,
          (client) => insertPostgresEvent({ client, queries: this.queries, key, row }),
          'appendEvent',
        )
      : // One auto-committed statement allocates the seq and inserts (queries.ts: appendEvent):
        // one round trip instead of BEGIN / statement / COMMIT, the same all-or-nothing write.
        await appendPostgresEvent({
          connection: this.connection,
          queries: this.queries,
          key,
          row,
          commitMode: this.synchronousCommit,
          signal: options.signal,
        });
    this.keepAppended(key, inserted);
    return inserted.event;
  }

  /** `appendEvent` and the lease's release in one statement (append-and-release.ts). */
  async appendEventAndReleaseLease(options: AppendEventAndReleaseLeaseOptions): Promise<Event> {
    assertValidNewEvent(options.event, { kind: 'event' });
    const { connection, queries, synchronousCommit } = this;
    const keepAppended = (inserted: InsertedPostgresEvent) => this.keepAppended(key, inserted);
    const key = pickKey(options);
    const context = { connection, queries, synchronousCommit, service: this, keepAppended };
    return appendAndRelease(context, options, prepareEventRow(options.event));
  }

  /**
   * A committed append of this instance, into its cached view when it directly follows it
   * (view-cache.ts: `appended`), so the next read returns no row for it. The cache gets a copy
   * parsed from the row's JSON, never the object returned to the caller.
   */
  private keepAppended(key: SessionKey, inserted: InsertedPostgresEvent): void {
    if (this.views.peekLastSeq(key) !== inserted.event.seq - 1) return;
    const copy = JSON.parse(inserted.json) as Event;
    copy.seq = inserted.event.seq;
    this.views.appended(key, inserted.createdAt, copy);
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    const key = pickKey(options);
    assertValidNewEvent(options.event, { kind: 'compaction' });
    return this.connection.transaction(
      key,
      options.signal,
      async (client) => {
        const locked = await client.query<{ last_seq: string }>(
          this.queries.lockSession,
          keyParams(key),
        );
        const lockedRow = locked.rows[0];
        if (!lockedRow) throw new SessionNotFoundError(key);
        const currentSeq = await this.reader.currentCheckpointSeq(client, key);
        if (currentSeq !== options.expectedCheckpointSeq) {
          throw new CompactionConflictError({
            sessionId: key.sessionId,
            expectedCheckpointSeq: options.expectedCheckpointSeq,
            actualCheckpointSeq: currentSeq,
          });
        }
        assertCompactionFits(options.event, Number(lockedRow.last_seq) + 1);
        const row = prepareEventRow(options.event);
        const inserted = await insertPostgresEvent({ client, queries: this.queries, key, row });
        return inserted.event as CompactionEvent;
      },
      'appendCompaction',
    );
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const key = { appName: options.appName, userId: options.userId, sessionId: '' };
    assertValidSessionKey({ ...key, sessionId: '-' });
    const rows = await this.connection.query<{
      id: string;
      updated_at: number;
      event_count: string;
    }>(key, options.signal, this.queries.listSessions, [options.appName, options.userId], {
      operation: 'listSessions',
    });
    return rows.map((row) => ({
      appName: options.appName,
      userId: options.userId,
      sessionId: row.id,
      lastUpdateTime: row.updated_at,
      eventCount: Number(row.event_count),
    }));
  }

  /** Every user's sessions (or those the filters keep), newest first, in one statement. */
  async listAllSessions(options: ListAllSessionsOptions): Promise<SessionOverview[]> {
    const resolved = resolveListAllSessionsOptions(options);
    const statement = buildListAllSessionsStatement(quoteIdentifier(this.schema), resolved);
    if (statement.empty) return [];
    const key = { appName: resolved.appName ?? '', userId: '', sessionId: '' };
    const rows = await this.connection.query<OverviewRow>(
      key,
      options.signal,
      statement.text,
      statement.values,
      { operation: 'listAllSessions' },
    );
    return toSessionOverviews(rows);
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    const key = pickKey(options);
    this.views.forget(key);
    await this.connection.query(key, options.signal, this.queries.deleteSession, keyParams(key), {
      operation: 'deleteSession',
    });
  }

  /** All or nothing: one transaction, events in multi-row inserts (see `import-session.ts`). */
  async importSession(options: ImportSessionOptions): Promise<ImportSessionResult> {
    const { key, state } = prepareImport(options);
    return this.connection.transaction(
      key,
      options.signal,
      (client) =>
        importPostgresSession({
          client,
          schema: this.schema,
          queries: this.queries,
          key,
          state,
          import: options,
        }),
      'importSession',
    );
  }

  /** Full-text search (`tsvector`, GIN, BM25) over the user's events (`search.ts`). */
  async searchEvents(options: SearchEventsOptions): Promise<SearchHit[]> {
    this.searchStatements ??= buildSearchStatements(this.schema);
    return searchStoredEvents({
      options,
      connection: this.connection,
      statements: this.searchStatements,
      termShares: this.termShares,
      language: this.searchLanguage,
      reader: this.reader,
    });
  }

  /** One invocation at a time per session, across processes (see `lease.ts`). */
  async acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
    const pool = await this.connection.connect(options.signal);
    return acquirePostgresLease({
      pool,
      queries: this.leaseQueries,
      local: this.leases,
      lease: options,
    });
  }

  /**
   * The lease and the session's view in one statement when this instance holds the view
   * (`leaseAndViewSince`: the take, then the rows appended since, plus a check that nothing
   * committed between the statement's snapshot and the take); otherwise, or when that check
   * fails, the view is read after the take as `getSession` reads it (lease-and-view.ts).
   */
  async acquireLeaseAndGetSession(options: AcquireLeaseOptions): Promise<LeasedSession> {
    return leaseAndView(await this.leaseContext(options), options);
  }

  /**
   * The lease, the event appended and the session's view in one statement when the event
   * writes no state (lease-and-append.ts); two steps when it does.
   */
  async acquireLeaseAndAppend(options: AcquireLeaseAndAppendOptions): Promise<LeasedAppend> {
    assertValidNewEvent(options.event, { kind: 'event' });
    if (Object.keys(options.event.actions?.stateDelta ?? {}).length > 0) {
      return leaseThenAppend(this, options);
    }
    const row = prepareEventRow(options.event);
    return leaseAndAppend(await this.leaseContext(options), options, row);
  }

  /** What a take that also reads (and appends) needs of this instance. */
  private async leaseContext(options: AcquireLeaseOptions): Promise<LeaseContext> {
    const pool = await this.connection.connect(options.signal);
    return {
      connection: this.connection,
      queries: this.queries,
      views: this.views,
      reader: this.reader,
      synchronousCommit: this.synchronousCommit,
      acquire: (take) =>
        acquirePostgresLease({
          pool,
          queries: this.leaseQueries,
          local: this.leases,
          lease: options,
          take,
        }),
      getSession: (key, signal) => this.getSession({ ...key, signal }),
    };
  }

  /**
   * Ends the pool it created (after the operations in flight); a pool you passed is left open
   * and its 'error' listener removed. The next operation opens a new pool.
   */
  close(): Promise<void> {
    return this.connection.close();
  }

  /** Creates the pool if needed and applies pending migrations (once per service). */
  async migrate(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.connection.connect(options.signal);
  }
}
