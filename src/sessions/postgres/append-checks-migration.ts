/**
 * Migration 10: two checks PostgreSQL ran on every append, whose answer the append statement
 * already has, left to the writer (docs/performance.md, "Cheaper PostgreSQL statements").
 *
 * - The events' foreign key to their session: its check is a trigger running a `SELECT ... FOR
 *   KEY SHARE` of the session row for every inserted event (an SPI query: ~20 µs of backend CPU
 *   per append), though every insert of the store is `SELECT ... FROM` the session row's own
 *   `UPDATE ... RETURNING` (the row exists and is locked by the inserting transaction) or
 *   follows the session row's insert (an import). Its `ON DELETE CASCADE` is kept by a trigger
 *   on the session's delete, which costs nothing when no session is deleted: its `DELETE`
 *   takes a new snapshot (a volatile function under READ COMMITTED), as the cascade did, so it
 *   also removes an event appended by a transaction the session's delete waited for.
 * - `updated_minute` generated from `updated_at`: every update of a session row built and ran
 *   the generation expression (~10 µs per append). The writers set it beside `updated_at`
 *   (`minuteOf` below). `DROP EXPRESSION` keeps every stored value (no rewrite).
 *
 * An older orrery still running during the upgrade leaves `updated_minute` as it was on the rows
 * it updates (the listing's order lags for those sessions until their next append; a row it
 * inserts gets its minute from a trigger), and may insert an event for a deleted session
 * (nothing checks it any more).
 */
export const POSTGRES_APPEND_CHECKS_MIGRATION: string[] = [
  `ALTER TABLE {schema}.orrery_events
    DROP CONSTRAINT IF EXISTS orrery_events_app_name_user_id_session_id_fkey`,
  `CREATE FUNCTION {schema}.orrery_session_events_delete() RETURNS trigger
    LANGUAGE plpgsql AS $delete$
    BEGIN
      DELETE FROM {schema}.orrery_events
        WHERE app_name = OLD.app_name AND user_id = OLD.user_id AND session_id = OLD.id;
      RETURN NULL;
    END
    $delete$`,
  `CREATE TRIGGER orrery_sessions_events_delete AFTER DELETE ON {schema}.orrery_sessions
    FOR EACH ROW EXECUTE FUNCTION {schema}.orrery_session_events_delete()`,
  'ALTER TABLE {schema}.orrery_sessions ALTER COLUMN updated_minute DROP EXPRESSION IF EXISTS',
  // A row inserted without the minute (an older writer, a load by hand) gets it, as the
  // generated column gave it: NULL would sort first in the listings. Inserts only: appends
  // update the row and pay nothing for it.
  `CREATE FUNCTION {schema}.orrery_session_minute_fill() RETURNS trigger
    LANGUAGE plpgsql AS $fill$
    BEGIN
      NEW.updated_minute := floor(NEW.updated_at / 60);
      RETURN NEW;
    END
    $fill$`,
  `CREATE TRIGGER orrery_sessions_minute_fill BEFORE INSERT ON {schema}.orrery_sessions
    FOR EACH ROW WHEN (NEW.updated_minute IS NULL)
    EXECUTE FUNCTION {schema}.orrery_session_minute_fill()`,
];

/** `updated_minute`'s value for an `updated_at` expression (SQL), as the generated column was. */
export function minuteOf(updatedAt: string): string {
  return `floor((${updatedAt})::double precision / 60)`;
}
