/**
 * Versioned schema migrations. Each one runs in its own `BEGIN IMMEDIATE` transaction and is
 * recorded in `schema_migrations`, so several processes opening a fresh file at once apply it
 * exactly once. A database migrated by a newer orrery is refused rather than misread.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SessionStoreError } from '../errors.js';
import { SQLITE_LIST_ALL_SESSIONS_MIGRATION_SQL } from './list-all-sessions.js';
import {
  SQLITE_SEARCH_BATCH_MIGRATION_SQL,
  SQLITE_SEARCH_MIGRATION_SQL,
  SQLITE_SEARCH_WATERMARK_MIGRATION_SQL,
} from './search-index.js';

export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'sessions, events, app and user state',
    sql: `
      CREATE TABLE sessions (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        id TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT '{}',
        -- Per-session seq counter: seq = last_seq + 1 inside the append transaction.
        last_seq INTEGER NOT NULL DEFAULT 0,
        event_count INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (app_name, user_id, id)
      );
      CREATE TABLE events (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        author TEXT NOT NULL,
        timestamp REAL NOT NULL,
        is_compaction INTEGER NOT NULL DEFAULT 0,
        compaction_start_seq INTEGER,
        compaction_end_seq INTEGER,
        event TEXT NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id, seq)
      );
      -- The checkpoint in one index probe: largest end_seq, ties the later seq.
      CREATE INDEX events_checkpoints
        ON events (app_name, user_id, session_id, compaction_end_seq DESC, seq DESC, compaction_start_seq)
        WHERE is_compaction = 1;
      CREATE TABLE app_state (
        app_name TEXT NOT NULL PRIMARY KEY,
        state TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL
      );
      CREATE TABLE user_state (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL,
        PRIMARY KEY (app_name, user_id)
      );
    `,
  },
  {
    version: 2,
    name: 'session leases: one invocation at a time per session',
    sql: `
      -- One row per leased session; a holder that stops renewing loses it at expires_at (ms).
      CREATE TABLE session_leases (
        app_name TEXT NOT NULL,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (app_name, user_id, session_id)
      );
    `,
  },
  {
    version: 3,
    name: 'history search: FTS5 over event text, kept in step by triggers, backfilled',
    sql: SQLITE_SEARCH_MIGRATION_SQL,
  },
  {
    version: 4,
    name: 'listing across users: sessions by update time',
    sql: SQLITE_LIST_ALL_SESSIONS_MIGRATION_SQL,
  },
  {
    version: 5,
    name: 'history search: events indexed in batches of 256, the rest before each search',
    sql: SQLITE_SEARCH_BATCH_MIGRATION_SQL,
  },
  {
    version: 6,
    name: 'history search: a watermark, appends index nothing; idle time and searches index them',
    sql: SQLITE_SEARCH_WATERMARK_MIGRATION_SQL,
  },
];

export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;

function currentVersion(database: BetterSqlite3.Database): number {
  const row = database.prepare('SELECT MAX(version) AS version FROM schema_migrations').get() as
    | { version: number | null }
    | undefined;
  return row?.version ?? 0;
}

/** Brings the schema to `SQLITE_SCHEMA_VERSION`; throws `SessionStoreError` on a newer one. */
export function migrateSqlite(
  database: BetterSqlite3.Database,
  migrations: readonly SqliteMigration[] = SQLITE_MIGRATIONS,
): void {
  database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
  )`);
  const known = migrations[migrations.length - 1]?.version ?? 0;
  const found = currentVersion(database);
  if (found > known) {
    throw new SessionStoreError({
      message: `SQLite database '${database.name}' has schema version ${found}, newer than version ${known} known to this orrery: upgrade orrery`,
    });
  }
  const record = database.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of migrations) {
    database
      .transaction(() => {
        // Re-read inside the write lock: another process may have just applied it.
        if (currentVersion(database) >= migration.version) return;
        database.exec(migration.sql);
        record.run(migration.version, migration.name, Date.now() / 1000);
      })
      .immediate();
  }
}
