/**
 * Versioned schema migrations for the PostgreSQL store. Each migration runs in its own
 * transaction, is recorded in `orrery_schema_migrations`, and is guarded by a transaction-level
 * advisory lock so that any number of runner processes starting at once apply it exactly once.
 */
import type { Pool, PoolClient } from 'pg';
import { SessionStoreError } from '../errors.js';
import { POSTGRES_APPEND_CHECKS_MIGRATION } from './append-checks-migration.js';
import {
  POSTGRES_LIST_ALL_SESSIONS_MIGRATION,
  POSTGRES_SESSIONS_BY_MINUTE_MIGRATION,
} from './list-all-sessions.js';
import { defaultConnectionTimeoutMs, defaultQueryTimeoutMs, withClient } from './pg-checkout.js';
import { isConnectionError, poolSecrets, toStoreError } from './pg-errors.js';
import {
  POSTGRES_SEARCH_ACROSS_SESSIONS_MIGRATION,
  POSTGRES_SEARCH_FILLED_BY_WRITER_MIGRATION,
  POSTGRES_SEARCH_IN_ROW_MIGRATION,
  POSTGRES_SEARCH_MIGRATION,
  POSTGRES_SEARCH_SCOPED_MIGRATION,
} from './search-migrations.js';
import { POSTGRES_SESSION_LOOKUP_MIGRATION } from './session-lookup-migration.js';

export interface Migration {
  version: number;
  name: string;
  /** SQL statements; `{schema}` is replaced by the quoted schema name. */
  statements: string[];
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'sessions, events, app and user state',
    statements: [
      `CREATE TABLE {schema}.orrery_sessions (
        app_name text NOT NULL,
        user_id text NOT NULL,
        id text NOT NULL,
        state jsonb NOT NULL DEFAULT '{}'::jsonb,
        last_seq bigint NOT NULL DEFAULT 0,
        event_count bigint NOT NULL DEFAULT 0,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        PRIMARY KEY (app_name, user_id, id)
      )`,
      `CREATE INDEX orrery_sessions_updated ON {schema}.orrery_sessions
        (app_name, user_id, updated_at DESC)`,
      `CREATE TABLE {schema}.orrery_events (
        app_name text NOT NULL,
        user_id text NOT NULL,
        session_id text NOT NULL,
        seq bigint NOT NULL,
        event_id text NOT NULL,
        invocation_id text NOT NULL,
        author text NOT NULL,
        timestamp double precision NOT NULL,
        is_compaction boolean NOT NULL,
        compaction_start_seq bigint,
        compaction_end_seq bigint,
        event jsonb NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id, seq),
        FOREIGN KEY (app_name, user_id, session_id)
          REFERENCES {schema}.orrery_sessions (app_name, user_id, id) ON DELETE CASCADE,
        CHECK (NOT is_compaction OR
          (compaction_start_seq IS NOT NULL AND compaction_end_seq IS NOT NULL))
      )`,
      // The checkpoint query reads the first entry of this index: O(1) whatever the history.
      // The predicate is the validity rule (1 <= startSeq <= endSeq < seq), repeated in the query.
      `CREATE INDEX orrery_events_checkpoint ON {schema}.orrery_events
        (app_name, user_id, session_id, compaction_end_seq DESC, seq DESC)
        WHERE is_compaction AND compaction_start_seq >= 1
          AND compaction_start_seq <= compaction_end_seq AND compaction_end_seq < seq`,
      `CREATE TABLE {schema}.orrery_app_state (
        app_name text PRIMARY KEY,
        state jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at double precision NOT NULL
      )`,
      `CREATE TABLE {schema}.orrery_user_state (
        app_name text NOT NULL,
        user_id text NOT NULL,
        state jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at double precision NOT NULL,
        PRIMARY KEY (app_name, user_id)
      )`,
    ],
  },
  {
    version: 2,
    name: 'events as json text: NUL characters and key order kept',
    statements: [
      // jsonb cannot hold \u0000 (tool output read from a binary file has it) and reorders keys;
      // json keeps the exact text. Nothing queries inside the event, so nothing is lost.
      'ALTER TABLE {schema}.orrery_events ALTER COLUMN event TYPE json USING event::json',
    ],
  },
  {
    version: 3,
    name: 'session leases: one invocation at a time per session',
    statements: [
      // One row per leased session; a holder that stops renewing loses it at expires_at
      // (server time). No foreign key: a lease may be taken before its session is created.
      `CREATE TABLE {schema}.orrery_session_leases (
        app_name text NOT NULL,
        user_id text NOT NULL,
        session_id text NOT NULL,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id)
      )`,
    ],
  },
  {
    version: 4,
    name: 'history search: tsvector of event text (generated, backfilled), GIN index',
    statements: POSTGRES_SEARCH_MIGRATION,
  },
  {
    version: 5,
    name: 'listing across users: sessions by update time, compaction rows',
    statements: POSTGRES_LIST_ALL_SESSIONS_MIGRATION,
  },
  {
    version: 6,
    name: 'history search across sessions: events by user and seq',
    statements: POSTGRES_SEARCH_ACROSS_SESSIONS_MIGRATION,
  },
  {
    version: 7,
    name: 'history search: the tsvector computed from the text the writer sends',
    statements: POSTGRES_SEARCH_FILLED_BY_WRITER_MIGRATION,
  },
  {
    version: 8,
    name: 'sessions listed by update minute: the session row updated in place (HOT)',
    statements: POSTGRES_SESSIONS_BY_MINUTE_MIGRATION,
  },
  {
    version: 9,
    name: 'history search: the tsvector and the event kept in the row (storage main), not TOASTed',
    statements: POSTGRES_SEARCH_IN_ROW_MIGRATION,
  },
  {
    version: 10,
    name: 'appends without per-row checks: no foreign key (a delete trigger), updated_minute written',
    statements: POSTGRES_APPEND_CHECKS_MIGRATION,
  },
  {
    version: 11,
    name: 'history search: the GIN index scoped by user, session and seq bucket',
    statements: POSTGRES_SEARCH_SCOPED_MIGRATION,
  },
  {
    version: 12,
    name: 'session rows found by primary key: the listing indexes partial',
    statements: POSTGRES_SESSION_LOOKUP_MIGRATION,
  },
];

export const latestSchemaVersion = migrations[migrations.length - 1]?.version ?? 0;

/** Quotes an identifier for SQL (doubles embedded quotes). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Constant first key of the two-key advisory lock; the second is the schema name's hash. */
const advisoryLockKey = 0x0a7e5e55;

export interface MigrateOptions {
  pool: Pool;
  schema: string;
  /** Defaults to the shipped list; tests pass their own. */
  migrations?: Migration[];
  signal?: AbortSignal;
  /** Deadline of each statement in ms (default 30000; 0 disables, e.g. for a huge table). */
  queryTimeoutMs?: number;
  /** Deadline for getting a connection in ms (default 10000; 0 disables). */
  connectionTimeoutMs?: number;
}

/**
 * Applies every pending migration; throws `SessionStoreError` for a newer database, and a
 * `retryable` one when the connection is lost or cannot be opened.
 */
export async function migrate(options: MigrateOptions): Promise<{ version: number }> {
  const checkout = {
    pool: options.pool,
    signal: options.signal,
    queryTimeoutMs: options.queryTimeoutMs ?? defaultQueryTimeoutMs,
    connectionTimeoutMs: options.connectionTimeoutMs ?? defaultConnectionTimeoutMs,
  };
  try {
    return await withClient(checkout, async (client, discard) => {
      for (;;) {
        options.signal?.throwIfAborted();
        await client.query('BEGIN');
        try {
          const version = await applyNext(client, options);
          await client.query('COMMIT');
          if (version !== undefined) return { version };
        } catch (error) {
          if (!isConnectionError(error)) await client.query('ROLLBACK').catch(discard);
          throw error;
        }
      }
    });
  } catch (error) {
    throw toStoreError({
      error,
      operation: `migration of schema '${options.schema}'`,
      secrets: poolSecrets(options.pool),
    });
  }
}

/**
 * Inside one transaction: takes the advisory lock and applies the next pending migration.
 * Returns the schema's version when none is pending.
 */
async function applyNext(client: PoolClient, options: MigrateOptions): Promise<number | undefined> {
  const list = options.migrations ?? migrations;
  const known = list[list.length - 1]?.version ?? 0;
  const schema = quoteIdentifier(options.schema);
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
    advisoryLockKey,
    options.schema,
  ]);
  const current = await readVersion(client, options.schema, schema);
  if (current > known) {
    throw new SessionStoreError({
      message: `PostgreSQL schema '${options.schema}' is at version ${current}, newer than version ${known} known to this orrery: upgrade orrery`,
    });
  }
  const next = list.find((migration) => migration.version > current);
  if (!next) return current;
  for (const statement of next.statements) {
    await client.query(statement.replaceAll('{schema}', schema));
  }
  await client.query(
    `INSERT INTO ${schema}.orrery_schema_migrations (version, name) VALUES ($1, $2)`,
    [next.version, next.name],
  );
  return undefined;
}

async function readVersion(
  client: PoolClient,
  schemaName: string,
  schema: string,
): Promise<number> {
  // Look before creating: a role without CREATE on the database can still use an existing schema.
  const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schemaName]);
  if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
  const table = await client.query<{ name: string | null }>('SELECT to_regclass($1) AS name', [
    `${schema}.orrery_schema_migrations`,
  ]);
  if (!table.rows[0]?.name) {
    await client.query(
      `CREATE TABLE ${schema}.orrery_schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
  }
  const result = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${schema}.orrery_schema_migrations`,
  );
  return result.rows[0]?.version ?? 0;
}
