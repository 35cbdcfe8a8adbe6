/**
 * A trigger that makes every insert into a schema's events fail ("refused by the test"), for
 * tests of a statement whose append fails after its other steps ran. Returns its removal.
 */
import type pg from 'pg';
import { quoteIdentifier } from '../migrations.js';

export async function refuseEventInserts(
  pool: pg.Pool,
  schemaName: string,
): Promise<() => Promise<void>> {
  const schema = quoteIdentifier(schemaName);
  await pool.query(`CREATE OR REPLACE FUNCTION ${schema}.refuse_insert() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
  await pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${schema}.orrery_events
    FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse_insert()`);
  return async () => {
    await pool.query(`DROP TRIGGER refuse ON ${schema}.orrery_events`);
  };
}
