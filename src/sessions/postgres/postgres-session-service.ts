/**
 * PostgreSQL `SessionService` (SPEC §9): many runner processes, one database. `seq` is assigned
 * by a row-locking `UPDATE ... RETURNING` in the insert statement, compactions are conditional
 * under `SELECT ... FOR UPDATE`, and the active view is read as checkpoint + tail in one
 * statement whose cost does not grow with the history. `pg` is loaded lazily.
 */
import type { Pool, PoolClient } from 'pg';
import type { ViewWarning } from '../../compaction/view.js';
import { errorMessage, InvalidArgumentError } from '../../events/errors.js';
import { importOptional } from '../../events/import-optional.js';
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
  mergeState,
  resolvePageSize,
  resolveSeqBounds,
  splitState,
} from '../store-helpers.js';
import { skippedCheckpointWarning } from '../stored-row-rules.js';
import { importPostgresSession } from './import-session.js';
import { assertJsonbStorable } from './jsonb-state.js';
import { keyParams, pickKey, validateKey } from './key-and-errors.js';
import { acquirePostgresLease } from './lease.js';
import {
  buildListAllSessionsStatement,
  type OverviewRow,
  toSessionOverviews,
} from './list-all-sessions.js';
import { migrate, quoteIdentifier } from './migrations.js';
import {
  type CheckoutOptions,
  defaultConnectionTimeoutMs,
  defaultQueryTimeoutMs,
  raceSignal,
  withClient,
  withTransaction,
} from './pg-checkout.js';
import { passwordsOf, poolSecrets, redactSecrets, toStoreError } from './pg-errors.js';
import { buildQueries, type Queries } from './queries.js';
import {
  checkpointRowProblem,
  type EventRow,
  type PreparedEventRow,
  prepareEventRow,
  rowToEvent,
} from './rows.js';
import {
  buildSearchStatements,
  type SearchRow,
  type SearchStatements,
  searchPostgresEvents,
} from './search.js';
import { type SynchronousCommit, synchronousCommitOption } from './synchronous-commit.js';

export interface PostgresSessionServiceOptions {
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
}

/** pino-compatible: `logger.warn({ ...fields }, message)`. */
export interface PostgresSessionLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

interface ViewRow extends EventRow {
  part: number;
}

interface Header {
  state: Record<string, unknown>;
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  updatedAt: number;
}

export class PostgresSessionService implements SessionService {
  readonly schema: string;
  private readonly options: PostgresSessionServiceOptions;
  private readonly queries: Queries;
  /** Waiters of this process queue here in order before polling the lease row. */
  private readonly leases = new InMemoryLeases();
  private searchStatements?: SearchStatements;
  private ready?: Promise<Pool>;
  private pool?: Promise<Pool>;
  private readonly queryTimeoutMs: number;
  private readonly connectionTimeoutMs: number;
  private readonly synchronousCommit?: SynchronousCommit;

  constructor(options: PostgresSessionServiceOptions = {}) {
    this.options = options;
    this.schema = options.schema ?? 'public';
    if (this.schema.length === 0 || this.schema.length > 63) {
      throw new SessionStoreError({
        message: `Invalid PostgreSQL schema name '${this.schema}': 1 to 63 characters`,
      });
    }
    this.queries = buildQueries(this.schema);
    this.queryTimeoutMs = timeoutOption('queryTimeoutMs', options.queryTimeoutMs);
    this.connectionTimeoutMs = timeoutOption('connectionTimeoutMs', options.connectionTimeoutMs);
    this.synchronousCommit = synchronousCommitOption(options.synchronousCommit);
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const sessionId = options.sessionId ?? crypto.randomUUID();
    const key = { appName: options.appName, userId: options.userId, sessionId };
    validateKey(key);
    assertValidState(options.state);
    const scoped = splitState(options.state);
    assertJsonbStorable(scoped, 'state');
    const now = Date.now() / 1000;
    return this.transaction(
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
        await this.upsertScopedState(client, key, scoped, now);
        const rows = await client.query<ViewRow>(this.queries.header, keyParams(key));
        return { ...key, ...this.readHeader(rows.rows[0]), events: [] };
      },
      'createSession',
    );
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    const key = pickKey(options);
    const full = options.events === 'full';
    const rows = full
      ? await this.query<ViewRow>(key, options.signal, this.queries.full, keyParams(key), {
          operation: 'getSession',
        })
      : await this.readViewRows(key, options.signal, 'getSession');
    const header = rows[0];
    if (header?.part !== 0) return undefined;
    const events = this.parseRows(rows.slice(1), key);
    return { ...key, ...this.readHeader(header), events };
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    const key = pickKey(options);
    const warnings: ViewWarning[] = [];
    const rows = await this.readViewRows(key, options.signal, 'loadView', warnings);
    const header = rows[0];
    if (header?.part !== 0) throw new SessionNotFoundError(key);
    const checkpointRow = rows[1]?.part === 1 ? rows[1] : undefined;
    const tail = this.parseRows(rows.slice(checkpointRow ? 2 : 1), key);
    // readViewRows has checked the checkpoint row already (or thrown).
    const checkpoint = checkpointRow
      ? (rowToEvent(checkpointRow, key) as CompactionEvent)
      : undefined;
    const view: StoredView = { checkpoint, tail, lastSeq: Number(header.seq) };
    if (warnings.length > 0) view.warnings = warnings;
    return view;
  }

  async listEvents(options: ListEventsOptions): Promise<EventPage> {
    const key = pickKey(options);
    const limit = resolvePageSize(options.limit);
    const { afterSeq, beforeSeq } = resolveSeqBounds(options);
    const descending = options.order === 'desc';
    const rows = await this.query<EventRow>(
      key,
      options.signal,
      descending ? this.queries.listEventsDesc : this.queries.listEventsAsc,
      [...keyParams(key), afterSeq, beforeSeq, limit + 1],
      { operation: 'listEvents' },
    );
    if (rows.length === 0) {
      const exists = await this.query(
        key,
        options.signal,
        this.queries.sessionExists,
        [...keyParams(key)],
        { operation: 'listEvents' },
      );
      if (exists.length === 0) throw new SessionNotFoundError(key);
    }
    const page = rows.slice(0, limit);
    const events = this.parseRows(page, key);
    const last = page[page.length - 1];
    return rows.length > limit && last ? { events, nextCursor: Number(last.seq) } : { events };
  }

  async appendEvent(options: AppendEventOptions): Promise<Event> {
    const key = pickKey(options);
    assertValidNewEvent(options.event, { kind: 'event' });
    const row = prepareEventRow(options.event);
    if (row.touchesSharedState) {
      return this.transaction(
        key,
        options.signal,
        (client) => this.insertEvent(client, key, row),
        'appendEvent',
      );
    }
    // One auto-committed statement allocates the seq and inserts (queries.ts: appendEvent):
    // one round trip instead of BEGIN / statement / COMMIT, the same all-or-nothing write.
    return this.withConnection(
      key,
      options.signal,
      (client) => this.insertEvent(client, key, row, { autoCommit: true }),
      'appendEvent',
    );
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    const key = pickKey(options);
    assertValidNewEvent(options.event, { kind: 'compaction' });
    return this.transaction(
      key,
      options.signal,
      async (client) => {
        const locked = await client.query<{ last_seq: string }>(
          this.queries.lockSession,
          keyParams(key),
        );
        const lockedRow = locked.rows[0];
        if (!lockedRow) throw new SessionNotFoundError(key);
        const currentSeq = await this.currentCheckpointSeq(client, key);
        if (currentSeq !== options.expectedCheckpointSeq) {
          throw new CompactionConflictError({
            sessionId: key.sessionId,
            expectedCheckpointSeq: options.expectedCheckpointSeq,
            actualCheckpointSeq: currentSeq,
          });
        }
        assertCompactionFits(options.event, Number(lockedRow.last_seq) + 1);
        const row = prepareEventRow(options.event);
        return (await this.insertEvent(client, key, row)) as CompactionEvent;
      },
      'appendCompaction',
    );
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const key = { appName: options.appName, userId: options.userId, sessionId: '' };
    assertValidSessionKey({ ...key, sessionId: '-' });
    const rows = await this.query<{ id: string; updated_at: number; event_count: string }>(
      key,
      options.signal,
      this.queries.listSessions,
      [options.appName, options.userId],
      { operation: 'listSessions' },
    );
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
    const rows = await this.query<OverviewRow>(
      key,
      options.signal,
      statement.text,
      statement.values,
      {
        operation: 'listAllSessions',
      },
    );
    return toSessionOverviews(rows);
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    const key = pickKey(options);
    await this.query(key, options.signal, this.queries.deleteSession, keyParams(key), {
      operation: 'deleteSession',
    });
  }

  /** All or nothing: one transaction, events in multi-row inserts (see `import-session.ts`). */
  async importSession(options: ImportSessionOptions): Promise<ImportSessionResult> {
    const { key, state } = prepareImport(options);
    return this.transaction(
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

  /** Full-text search (`tsvector`, GIN, `ts_rank_cd`) over the user's events (`search.ts`). */
  async searchEvents(options: SearchEventsOptions): Promise<SearchHit[]> {
    const search = resolveSearchOptions(options);
    const key = {
      appName: search.appName,
      userId: search.userId,
      sessionId: search.sessionId ?? '',
    };
    if (search.sessionId !== undefined) {
      const exists = await this.query(key, options.signal, this.queries.sessionExists, [
        ...keyParams(key),
      ]);
      if (exists.length === 0) throw new SessionNotFoundError(key);
    }
    this.searchStatements ??= buildSearchStatements(this.schema);
    return searchPostgresEvents({
      search,
      statements: this.searchStatements,
      query: (text, values) =>
        this.query<SearchRow>(key, options.signal, text, values, { operation: 'searchEvents' }),
      readRow: (row, sessionId) => this.parseRows([row], { ...key, sessionId })[0],
    });
  }

  /** One invocation at a time per session, across processes (see `lease.ts`). */
  async acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
    const pool = await this.connect(options.signal);
    return acquirePostgresLease({ pool, schema: this.schema, local: this.leases, lease: options });
  }

  /**
   * Ends the pool it created (after the operations in flight); a pool you passed is left open
   * and its 'error' listener removed. The next operation opens a new pool.
   */
  async close(): Promise<void> {
    const pending = this.pool;
    this.pool = undefined;
    this.ready = undefined;
    const pool = await pending?.catch(() => undefined);
    if (!pool) return;
    if (pool === this.options.pool) {
      pool.removeListener('error', this.onPoolError);
      return;
    }
    // The listener stays: ending idle clients may still report errors.
    await pool.end();
  }

  /** Creates the pool if needed and applies pending migrations (once per service). */
  async migrate(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.connect(options.signal);
  }

  /**
   * A connection dropped while idle in the pool (server restart, `pg_terminate_backend`, a
   * proxy timeout) is reported here, never as an unhandled 'error' event; the pool has
   * discarded it and the next operation opens a new one.
   */
  private readonly onPoolError = (error: Error) => {
    this.options.logger?.warn(
      { error: redactSecrets(error.message, this.secrets()) },
      'PostgreSQL idle connection lost',
    );
  };

  private secrets(): string[] {
    return passwordsOf(this.options.connectionString).concat(
      this.options.pool ? poolSecrets(this.options.pool) : [],
    );
  }

  /** The pool, created once; a passed pool gets the 'error' listener too. */
  private openPool(): Promise<Pool> {
    this.pool ??= (async () => {
      if (this.options.pool) {
        this.options.pool.on('error', this.onPoolError);
        return this.options.pool;
      }
      const { default: pg } = await importOptional({
        packageName: 'pg',
        load: () => import('pg'),
        toError: ({ missing, cause }) =>
          new SessionStoreError({
            message: missing
              ? "PostgresSessionService needs the optional dependency 'pg': npm install pg"
              : `PostgresSessionService could not load 'pg': ${errorMessage(cause)}`,
            cause,
          }),
      });
      const pool = new pg.Pool({
        connectionString: this.options.connectionString,
        connectionTimeoutMillis: this.connectionTimeoutMs,
        // Finds a peer that vanished without closing the socket (no RST) on idle connections.
        keepAlive: true,
      });
      pool.on('error', this.onPoolError);
      return pool;
    })().catch((error: unknown) => {
      this.pool = undefined;
      throw error;
    });
    return this.pool;
  }

  /**
   * The migrated pool. The migration runs once for all callers, bounded by the timeouts; each
   * caller waits for it only as long as its own signal allows.
   */
  private connect(signal: AbortSignal | undefined): Promise<Pool> {
    signal?.throwIfAborted();
    this.ready ??= (async () => {
      const pool = await this.openPool();
      await migrate({
        pool,
        schema: this.schema,
        queryTimeoutMs: this.queryTimeoutMs,
        connectionTimeoutMs: this.connectionTimeoutMs,
      });
      return pool;
    })().catch((error: unknown) => {
      this.ready = undefined; // let the next call retry (the database may come back)
      throw error;
    });
    return raceSignal(this.ready, signal);
  }

  /** `autoCommit`: the statement is its own transaction, so it sets the commit mode itself. */
  private async insertEvent(
    client: PoolClient,
    key: SessionKey,
    row: PreparedEventRow,
    options: { autoCommit?: boolean } = {},
  ) {
    const { values, scoped } = row;
    const stored = values.stored;
    const now = Date.now() / 1000;
    const commitMode = options.autoCommit ? this.synchronousCommit : undefined;
    const text = commitMode ? this.queries.appendEventWithCommitMode : this.queries.appendEvent;
    const inserted = await client.query<{ seq: string }>(text, [
      ...keyParams(key),
      now,
      JSON.stringify(scoped.session),
      stored.id,
      stored.invocationId,
      stored.author,
      stored.timestamp,
      values.isCompaction,
      values.compactionStartSeq,
      values.compactionEndSeq,
      values.json,
      ...(commitMode ? [commitMode] : []),
    ]);
    const insertedRow = inserted.rows[0];
    if (!insertedRow) throw new SessionNotFoundError(key);
    // Session row first, then app, then user: one lock order for every writer (no deadlock).
    await this.upsertScopedState(client, key, scoped, now);
    return { ...stored, seq: Number(insertedRow.seq) } as Event;
  }

  private async upsertScopedState(
    client: PoolClient,
    key: SessionKey,
    scoped: ReturnType<typeof splitState>,
    now: number,
  ): Promise<void> {
    if (Object.keys(scoped.app).length > 0) {
      await client.query(this.queries.upsertAppState, [
        key.appName,
        JSON.stringify(scoped.app),
        now,
      ]);
    }
    if (Object.keys(scoped.user).length > 0) {
      await client.query(this.queries.upsertUserState, [
        key.appName,
        key.userId,
        JSON.stringify(scoped.user),
        now,
      ]);
    }
  }

  /**
   * Header + checkpoint + tail. A checkpoint that cannot be one (stored-row-rules.ts) is passed
   * over with a warning; a corrupt one too unless `onCorruptEvent` throws.
   */
  private async readViewRows(
    key: SessionKey,
    signal: AbortSignal | undefined,
    operation: string,
    warnings: ViewWarning[] = [],
  ) {
    const skipped: number[] = [];
    for (;;) {
      const rows = await this.query<ViewRow>(
        key,
        signal,
        this.queries.view,
        [...keyParams(key), `{${skipped.join(',')}}`],
        { operation },
      );
      const checkpoint = rows[1]?.part === 1 ? rows[1] : undefined;
      const problem = checkpoint && this.checkpointProblem(checkpoint, key, Number(rows[0]?.seq));
      if (!checkpoint || !problem) return rows;
      warnings.push(
        skippedCheckpointWarning({ key, seq: Number(checkpoint.seq), reason: problem }),
      );
      skipped.push(Number(checkpoint.seq));
    }
  }

  /** Why a checkpoint candidate cannot be used (a corrupt row throws in `throw` mode). */
  private checkpointProblem(row: EventRow, key: SessionKey, lastSeq: number): string | undefined {
    const event = this.parseRows([row], key)[0];
    const problem = event ? checkpointRowProblem(row, event, lastSeq) : 'its row is corrupt';
    if (problem)
      this.options.logger?.warn({ ...key, seq: Number(row.seq) }, `checkpoint skipped: ${problem}`);
    return problem;
  }

  /** The checkpoint the view would use now (same rule, same skips), inside a transaction. */
  private async currentCheckpointSeq(client: PoolClient, key: SessionKey): Promise<number | null> {
    const skipped: number[] = [];
    for (;;) {
      const result = await client.query<EventRow>(this.queries.checkpointSeq, [
        ...keyParams(key),
        `{${skipped.join(',')}}`,
      ]);
      const row = result.rows[0];
      if (!row) return null;
      if (!this.checkpointProblem(row, key, Number.MAX_SAFE_INTEGER)) return Number(row.seq);
      skipped.push(Number(row.seq));
    }
  }

  /** Rows as events; a corrupt row throws or is left out, as `onCorruptEvent` says. */
  private parseRows(rows: EventRow[], key: SessionKey): Event[] {
    const events: Event[] = [];
    const mode = this.options.onCorruptEvent ?? 'throw';
    for (const row of rows) {
      try {
        events.push(rowToEvent(row, key));
      } catch (error) {
        if (mode === 'throw' || !SessionStoreError.isInstance(error)) throw error;
        if (mode === 'skip') {
          this.options.logger?.warn({ ...key, seq: error.seq }, `${error.message}; skipped`);
        } else {
          mode(error);
        }
      }
    }
    return events;
  }

  private readHeader(row: ViewRow | undefined): Pick<Session, 'state' | 'lastUpdateTime'> {
    const header = row?.event as Header | undefined;
    if (!header) throw new SessionStoreError({ message: 'Session header missing' });
    return {
      state: mergeState({ session: header.state, app: header.app, user: header.user }),
      lastUpdateTime: header.updatedAt,
    };
  }

  private async query<Row extends object>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    text: string,
    values: unknown[],
    options: { operation?: string } = {},
  ): Promise<Row[]> {
    return this.withConnection(
      key,
      signal,
      async (client) => (await client.query<Row>(text, values)).rows,
      options.operation ?? 'query',
    );
  }

  /** `work` on one guarded connection, auto-committed; errors as in `transaction`. */
  private async withConnection<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    work: (client: PoolClient) => Promise<T>,
    operation: string,
  ): Promise<T> {
    try {
      return await withClient(await this.checkout(signal), work);
    } catch (error) {
      throw toStoreError({ error, operation, key, secrets: this.secrets() });
    }
  }

  /**
   * `work` in one transaction on one guarded connection: a lost connection, a timeout or an
   * abort ends it with the connection discarded; driver errors become `SessionStoreError`s
   * naming `operation` (retryable when the connection was lost).
   */
  private async transaction<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    work: (client: PoolClient) => Promise<T>,
    operation = 'transaction',
  ): Promise<T> {
    const commitMode = this.synchronousCommit;
    try {
      return await withTransaction(await this.checkout(signal), async (client) => {
        if (commitMode) await client.query(this.queries.setCommitMode, [commitMode]);
        return work(client);
      });
    } catch (error) {
      throw toStoreError({ error, operation, key, secrets: this.secrets() });
    }
  }

  private async checkout(signal: AbortSignal | undefined): Promise<CheckoutOptions> {
    return {
      pool: await this.connect(signal),
      signal,
      queryTimeoutMs: this.queryTimeoutMs,
      connectionTimeoutMs: this.connectionTimeoutMs,
    };
  }
}

/** A timeout option: a finite number of ms >= 0 (0 disables), or the default. */
function timeoutOption(name: 'queryTimeoutMs' | 'connectionTimeoutMs', value: number | undefined) {
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
