/**
 * `listAllSessions` for the SQLite store: one statement over `sessions`, newest first through
 * the `updated_at` indexes of migration 4, the compaction count from the partial index of
 * compaction rows (docs/architecture.md, Storage).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { ResolvedListAllSessions } from '../list-all-sessions.js';
import type { SessionOverview } from '../session-service.js';

/** Migration 4: the listing reads the newest rows of one of these and stops at `limit`. */
export const SQLITE_LIST_ALL_SESSIONS_MIGRATION_SQL = `
  CREATE INDEX sessions_recent ON sessions (updated_at DESC, app_name, user_id, id);
  CREATE INDEX sessions_app_recent ON sessions (app_name, updated_at DESC, user_id, id);
`;

interface OverviewRow {
  app_name: string;
  user_id: string;
  id: string;
  updated_at: number;
  event_count: number;
  compaction_count: number;
}

/** One prepared statement per filter combination and connection. */
const cache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function statementFor(
  database: BetterSqlite3.Database,
  filters: { app: boolean; users: boolean },
): BetterSqlite3.Statement {
  const variant = `${filters.app}/${filters.users}`;
  let statements = cache.get(database);
  if (!statements) {
    statements = new Map();
    cache.set(database, statements);
  }
  let statement = statements.get(variant);
  if (!statement) {
    // Only the filters given appear, so the planner picks the matching index.
    const where = [
      filters.app ? 's.app_name = @appName' : '',
      filters.users ? 's.user_id IN (SELECT value FROM json_each(@userIds))' : '',
    ].filter((condition) => condition !== '');
    statement = database.prepare(
      `SELECT s.app_name, s.user_id, s.id, s.updated_at, s.event_count,
        (SELECT COUNT(*) FROM events e
          WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.id
            AND e.is_compaction = 1) AS compaction_count
       FROM sessions s
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY s.updated_at DESC, s.app_name, s.user_id, s.id LIMIT @limit`,
    );
    statements.set(variant, statement);
  }
  return statement;
}

/** The sessions the filters keep, newest first (runs synchronously on the connection). */
export function listAllSqliteSessions(
  database: BetterSqlite3.Database,
  options: ResolvedListAllSessions,
): SessionOverview[] {
  if (options.userIds?.length === 0) return [];
  const filters = { app: options.appName !== undefined, users: options.userIds !== undefined };
  const parameters: Record<string, unknown> = { limit: options.limit };
  if (filters.app) parameters.appName = options.appName;
  if (filters.users) parameters.userIds = JSON.stringify(options.userIds);
  const rows = statementFor(database, filters).all(parameters) as OverviewRow[];
  return rows.map((row) => ({
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.id,
    lastUpdateTime: row.updated_at,
    eventCount: row.event_count,
    compactionCount: row.compaction_count,
  }));
}
