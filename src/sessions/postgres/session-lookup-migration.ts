/**
 * Migration 12: the session row found through its primary key, whatever the statistics say.
 *
 * Every turn's statements find the session row by `app_name = $1 AND user_id = $2 AND id = $3`
 * (the take's update, its header and range bound, the answer's update). Without statistics on
 * `orrery_sessions` (a new database until autovacuum's first ANALYZE, and each connection's
 * cached plans until then) the planner priced the listing index `orrery_sessions_user_minute`
 * (`app_name, user_id, updated_minute`) the same as the primary key and took it: each lookup
 * walked every session of the user and fetched each row to check its id (64 sessions in the
 * serve bench; 2,000 in a probe: 2,000 rows, four times a turn). The listing indexes are now
 * partial on `updated_minute IS NOT NULL`, a condition the listings state (`LISTED`) and the
 * session lookups do not, so the planner cannot choose them for a lookup. The column is made
 * NOT NULL first (the writers and the insert trigger always set it; a row left without one gets
 * it), so the condition leaves no session out of a listing.
 */
export const POSTGRES_SESSION_LOOKUP_MIGRATION: string[] = [
  `UPDATE {schema}.orrery_sessions SET updated_minute = floor(updated_at / 60)
    WHERE updated_minute IS NULL`,
  'ALTER TABLE {schema}.orrery_sessions ALTER COLUMN updated_minute SET NOT NULL',
  'DROP INDEX {schema}.orrery_sessions_user_minute',
  'DROP INDEX {schema}.orrery_sessions_minute',
  'DROP INDEX {schema}.orrery_sessions_app_minute',
  `CREATE INDEX orrery_sessions_user_minute ON {schema}.orrery_sessions
    (app_name, user_id, updated_minute DESC) WHERE updated_minute IS NOT NULL`,
  `CREATE INDEX orrery_sessions_minute ON {schema}.orrery_sessions
    (updated_minute DESC, app_name, user_id, id) WHERE updated_minute IS NOT NULL`,
  `CREATE INDEX orrery_sessions_app_minute ON {schema}.orrery_sessions
    (app_name, updated_minute DESC, user_id, id) WHERE updated_minute IS NOT NULL`,
];

/** The listings' condition that lets them use the partial listing indexes (`s.` qualified). */
export const LISTED = 'updated_minute IS NOT NULL';
