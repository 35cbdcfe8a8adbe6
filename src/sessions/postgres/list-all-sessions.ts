/**
 * `listAllSessions` for the PostgreSQL store: one statement over `orrery_sessions`, newest first
 * through the `updated_minute` indexes of migration 8 (migration 5 indexed `updated_at`), the compaction count from its partial index
 * of compaction rows (docs/architecture.md, Storage).
 */
import type { ResolvedListAllSessions } from '../list-all-sessions.js';
import type { SessionOverview } from '../session-service.js';
import { LISTED } from './session-lookup-migration.js';

/** Migration 5 (`{schema}` replaced by the migrator). */
export const POSTGRES_LIST_ALL_SESSIONS_MIGRATION: string[] = [
  `CREATE INDEX orrery_sessions_recent ON {schema}.orrery_sessions
    (updated_at DESC, app_name, user_id, id)`,
  `CREATE INDEX orrery_sessions_app_recent ON {schema}.orrery_sessions
    (app_name, updated_at DESC, user_id, id)`,
  // Counts every stored compaction (the checkpoint index holds only the valid ones).
  `CREATE INDEX orrery_events_compactions ON {schema}.orrery_events
    (app_name, user_id, session_id) WHERE is_compaction`,
];

/**
 * Migration 8: the listings ordered through `updated_minute` (`floor(updated_at / 60)`, a stored
 * generated column) instead of `updated_at`. Every append sets `updated_at`; while it was in
 * three indexes no update of a session row was HOT (a new heap tuple and four B-tree inserts
 * per append, two appends a turn). The minute changes at most once a minute per session, so
 * the other appends of that minute are HOT (PostgreSQL compares the indexed columns' old and
 * new values, a generated one too). `ORDER BY updated_minute DESC, updated_at DESC, ...` is the
 * order by `updated_at` (the minute never decreases with it); the index gives the minutes in
 * order and an incremental sort orders each minute's sessions, stopped at the `LIMIT`.
 * Adding the column rewrites the sessions table (not the events).
 */
export const POSTGRES_SESSIONS_BY_MINUTE_MIGRATION: string[] = [
  `ALTER TABLE {schema}.orrery_sessions ADD COLUMN updated_minute double precision
    GENERATED ALWAYS AS (floor(updated_at / 60)) STORED`,
  'DROP INDEX {schema}.orrery_sessions_updated',
  'DROP INDEX {schema}.orrery_sessions_recent',
  'DROP INDEX {schema}.orrery_sessions_app_recent',
  `CREATE INDEX orrery_sessions_user_minute ON {schema}.orrery_sessions
    (app_name, user_id, updated_minute DESC)`,
  `CREATE INDEX orrery_sessions_minute ON {schema}.orrery_sessions
    (updated_minute DESC, app_name, user_id, id)`,
  `CREATE INDEX orrery_sessions_app_minute ON {schema}.orrery_sessions
    (app_name, updated_minute DESC, user_id, id)`,
];

interface OverviewRow {
  app_name: string;
  user_id: string;
  id: string;
  updated_at: number;
  event_count: string;
  compaction_count: string;
}

export interface ListAllSessionsStatement {
  text: string;
  values: unknown[];
  /** `true`: nothing can match (an empty `userIds`), no need to ask the server. */
  empty: boolean;
}

/** The statement for these filters (only the filters given appear, for the planner). */
export function buildListAllSessionsStatement(
  schema: string,
  options: ResolvedListAllSessions,
): ListAllSessionsStatement {
  const values: unknown[] = [];
  const where: string[] = [`s.${LISTED}`];
  if (options.appName !== undefined) {
    values.push(options.appName);
    where.push(`s.app_name = $${values.length}`);
  }
  if (options.userIds !== undefined) {
    values.push(options.userIds);
    where.push(`s.user_id = ANY($${values.length}::text[])`);
  }
  values.push(options.limit);
  const text = `SELECT s.app_name, s.user_id, s.id, s.updated_at, s.event_count,
      (SELECT count(*) FROM ${schema}.orrery_events e
        WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.id
          AND e.is_compaction) AS compaction_count
    FROM ${schema}.orrery_sessions s
    WHERE ${where.join(' AND ')}
    ORDER BY s.updated_minute DESC, s.updated_at DESC, s.app_name, s.user_id, s.id
    LIMIT $${values.length}`;
  return { text, values, empty: options.userIds?.length === 0 };
}

export function toSessionOverviews(rows: readonly OverviewRow[]): SessionOverview[] {
  return rows.map((row) => ({
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.id,
    lastUpdateTime: row.updated_at,
    eventCount: Number(row.event_count),
    compactionCount: Number(row.compaction_count),
  }));
}

export type { OverviewRow };
