/**
 * PostgreSQL `SessionService` (SPEC §9): many runner processes, one database. `seq` is assigned
 * by a row-locking `UPDATE ... RETURNING` in the insert statement, compactions are conditional
 * under `SELECT ... FOR UPDATE`, and the active view is read as checkpoint + tail in one
 * statement whose cost does not grow with the history. `pg` is loaded lazily.
 */
import type { Pool, PoolClient } from 'pg';
import { InvalidEventError } from '../../events/errors.js';
import type { CompactionEvent, Event, NewEvent, Session, SessionKey } from '../../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
  SessionStoreError,
} from '../errors.js';
import { InMemoryLeases } from '../in-memory-lease.js';
import type {
  AcquireLeaseOptions,
  AppendCompactionOptions,
  AppendEventOptions,
  CreateSessionOptions,
  EventPage,
  GetSessionOptions,
  ListEventsOptions,
  ListSessionsOptions,
  SessionLease,
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
import { keyParams, pickKey, validateKey, wrapError } from './key-and-errors.js';
import { acquirePostgresLease } from './lease.js';
import { migrate } from './migrations.js';
import { buildQueries, type Queries } from './queries.js';
import { type EventRow, rowToEvent, toEventRowValues } from './rows.js';

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
}

/** pino-compatible: `logger.warn({ ...fields }, message)`. */
export interface PostgresSessionLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * State is merged with jsonb `||`, and jsonb cannot hold NUL characters: such a value is an
 * `InvalidEventError` naming the key (events themselves are stored as json text and keep them).
 */
function assertJsonbStorable(scoped: ReturnType<typeof splitState>, path: string): void {
  for (const part of [scoped.session, scoped.user, scoped.app]) {
    for (const [key, value] of Object.entries(part)) {
      if (containsNul(key) || containsNul(value)) {
        throw new InvalidEventError({
          path: `${path}[${JSON.stringify(key)}]`,
          message: 'holds a NUL character (\\u0000), which PostgreSQL state (jsonb) cannot store',
          value,
        });
      }
    }
  }
}

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(containsNul);
  return Object.entries(value).some(([key, child]) => containsNul(key) || containsNul(child));
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
  private ready?: Promise<Pool>;
  private ownedPool?: Pool;

  constructor(options: PostgresSessionServiceOptions = {}) {
    this.options = options;
    this.schema = options.schema ?? 'public';
    if (this.schema.length === 0 || this.schema.length > 63) {
      throw new SessionStoreError({
        message: `Invalid PostgreSQL schema name '${this.schema}': 1 to 63 characters`,
      });
    }
    this.queries = buildQueries(this.schema);
  }

  async createSession(options: CreateSessionOptions): Promise<Session> {
    const sessionId = options.sessionId ?? crypto.randomUUID();
    const key = { appName: options.appName, userId: options.userId, sessionId };
    validateKey(key);
    assertValidState(options.state);
    const scoped = splitState(options.state);
    assertJsonbStorable(scoped, 'state');
    const now = Date.now() / 1000;
    return this.transaction(key, options.signal, async (client) => {
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
    });
  }

  async getSession(options: GetSessionOptions): Promise<Session | undefined> {
    const key = pickKey(options);
    const full = options.events === 'full';
    const rows = full
      ? await this.query<ViewRow>(key, options.signal, this.queries.full, keyParams(key))
      : await this.readViewRows(key, options.signal);
    const header = rows[0];
    if (header?.part !== 0) return undefined;
    const events = this.parseRows(rows.slice(1), key);
    return { ...key, ...this.readHeader(header), events };
  }

  async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    const key = pickKey(options);
    const rows = await this.readViewRows(key, options.signal);
    const header = rows[0];
    if (header?.part !== 0) throw new SessionNotFoundError(key);
    const checkpointRow = rows[1]?.part === 1 ? rows[1] : undefined;
    const tail = this.parseRows(rows.slice(checkpointRow ? 2 : 1), key);
    // readViewRows has checked the checkpoint row already (or thrown).
    const checkpoint = checkpointRow
      ? (rowToEvent(checkpointRow, key) as CompactionEvent)
      : undefined;
    return { checkpoint, tail, lastSeq: Number(header.seq) };
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
    );
    if (rows.length === 0) {
      const exists = await this.query(key, options.signal, this.queries.sessionExists, [
        ...keyParams(key),
      ]);
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
    return this.transaction(key, options.signal, (client) =>
      this.insertEvent(client, key, options.event),
    );
  }

  async appendCompaction(options: AppendCompactionOptions): Promise<CompactionEvent> {
    const key = pickKey(options);
    assertValidNewEvent(options.event, { kind: 'compaction' });
    return this.transaction(key, options.signal, async (client) => {
      const locked = await client.query<{ last_seq: string }>(
        this.queries.lockSession,
        keyParams(key),
      );
      const lockedRow = locked.rows[0];
      if (!lockedRow) throw new SessionNotFoundError(key);
      const current = await client.query<{ seq: string }>(this.queries.checkpointSeq, [
        ...keyParams(key),
        '{}',
      ]);
      const currentSeq = current.rows[0] ? Number(current.rows[0].seq) : null;
      if (currentSeq !== options.expectedCheckpointSeq) {
        throw new CompactionConflictError({
          sessionId: key.sessionId,
          expectedCheckpointSeq: options.expectedCheckpointSeq,
          actualCheckpointSeq: currentSeq,
        });
      }
      assertCompactionFits(options.event, Number(lockedRow.last_seq) + 1);
      return (await this.insertEvent(client, key, options.event)) as CompactionEvent;
    });
  }

  async listSessions(options: ListSessionsOptions): Promise<SessionSummary[]> {
    const key = { appName: options.appName, userId: options.userId, sessionId: '' };
    assertValidSessionKey({ ...key, sessionId: '-' });
    const rows = await this.query<{ id: string; updated_at: number; event_count: string }>(
      key,
      options.signal,
      this.queries.listSessions,
      [options.appName, options.userId],
    );
    return rows.map((row) => ({
      appName: options.appName,
      userId: options.userId,
      sessionId: row.id,
      lastUpdateTime: row.updated_at,
      eventCount: Number(row.event_count),
    }));
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    const key = pickKey(options);
    await this.query(key, options.signal, this.queries.deleteSession, keyParams(key));
  }

  /** One invocation at a time per session, across processes (see `lease.ts`). */
  async acquireLease(options: AcquireLeaseOptions): Promise<SessionLease> {
    const pool = await this.connect(options.signal);
    return acquirePostgresLease({ pool, schema: this.schema, local: this.leases, lease: options });
  }

  async close(): Promise<void> {
    const pool = this.ownedPool;
    this.ownedPool = undefined;
    this.ready = undefined;
    await pool?.end();
  }

  /** Creates the pool if needed and applies pending migrations (once per service). */
  async migrate(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.connect(options.signal);
  }

  private connect(signal: AbortSignal | undefined): Promise<Pool> {
    signal?.throwIfAborted();
    this.ready ??= (async () => {
      let pool = this.options.pool;
      if (!pool) {
        const { default: pg } = await import('pg');
        pool = new pg.Pool({ connectionString: this.options.connectionString });
        // An idle connection dropped by the server must not crash the process (pg emits
        // 'error' on the pool); the next query simply opens a new one.
        pool.on('error', (error) => {
          this.options.logger?.warn({ error: error.message }, 'PostgreSQL idle connection lost');
        });
        this.ownedPool = pool;
      }
      await migrate({ pool, schema: this.schema, signal });
      return pool;
    })().catch((error: unknown) => {
      this.ready = undefined; // let the next call retry (the database may come back)
      throw error;
    });
    return this.ready;
  }

  private async insertEvent(client: PoolClient, key: SessionKey, event: NewEvent) {
    const values = toEventRowValues(event);
    const stored = values.stored;
    const scoped = splitState(stored.actions.stateDelta);
    assertJsonbStorable(scoped, 'event.actions.stateDelta');
    const now = Date.now() / 1000;
    const inserted = await client.query<{ seq: string }>(this.queries.appendEvent, [
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
    ]);
    const row = inserted.rows[0];
    if (!row) throw new SessionNotFoundError(key);
    // Session row first, then app, then user: one lock order for every writer (no deadlock).
    await this.upsertScopedState(client, key, scoped, now);
    return { ...stored, seq: Number(row.seq) } as Event;
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

  /** Header + checkpoint + tail; a corrupt checkpoint is skipped unless `onCorruptEvent` throws. */
  private async readViewRows(key: SessionKey, signal: AbortSignal | undefined) {
    const skipped: number[] = [];
    for (;;) {
      const rows = await this.query<ViewRow>(key, signal, this.queries.view, [
        ...keyParams(key),
        `{${skipped.join(',')}}`,
      ]);
      const checkpoint = rows[1]?.part === 1 ? rows[1] : undefined;
      if (!checkpoint || this.parseRows([checkpoint], key).length === 1) return rows;
      skipped.push(Number(checkpoint.seq));
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
  ): Promise<Row[]> {
    const pool = await this.connect(signal);
    try {
      return (await pool.query<Row>(text, values)).rows;
    } catch (error) {
      throw wrapError(error, key);
    }
  }

  private async transaction<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    work: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    const pool = await this.connect(signal);
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw wrapError(error, key);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw wrapError(error, key);
    } finally {
      client.release(broken);
    }
  }
}
