/**
 * `listAllSessions` for the PostgreSQL store: one statement over `orrery_sessions`, newest first
 * through the `updated_at` indexes of migration 5, the compaction count from its partial index
 * of compaction rows (docs/architecture.md, Storage).
 */
import type { ResolvedListAllSessions } from '../list-all-sessions.js';
import type { SessionOverview } from '../session-service.js';

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
  const where: string[] = [];
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
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY s.updated_at DESC, s.app_name, s.user_id, s.id LIMIT $${values.length}`;
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
