import { expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { insertPostgresEvent } from './event-writer.js';
import { migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries } from './queries.js';
import { prepareEventRow } from './rows.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL appends without per-row checks (migration 10)', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'a', userId: 'u', sessionId: 's' };

  const eventCount = async (schema: string, sessionId: string) =>
    Number(
      (
        await fixture.pool.query<{ count: string }>(
          `SELECT count(*) FROM "${schema}".orrery_events WHERE session_id = $1`,
          [sessionId],
        )
      ).rows[0]?.count,
    );
  const minutes = async (schema: string) =>
    (
      await fixture.pool.query<{ id: string; updated_at: number; updated_minute: number }>(
        `SELECT id, updated_at, updated_minute FROM "${schema}".orrery_sessions ORDER BY id`,
      )
    ).rows;

  it('has no foreign key on the events and no generated column on the sessions', async () => {
    const schema = fixture.newSchema();
    await new PostgresSessionService({ pool: fixture.pool, schema }).migrate();
    const { rows } = await fixture.pool.query<{ foreign: string; generated: string }>(
      `SELECT (SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f')
          AS foreign,
        (SELECT count(*) FROM pg_attribute WHERE attrelid = $2::regclass AND attgenerated <> '')
          AS generated`,
      [`"${schema}".orrery_events`, `"${schema}".orrery_sessions`],
    );
    expect(rows[0]).toEqual({ foreign: '0', generated: '0' });
  });

  it('writes the update minute on create, append and import, and fills it for other inserts', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'one' }) });
    await service.importSession({
      ...key,
      sessionId: 'imported',
      events: [userTextEvent({ text: 'two' })],
    });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, created_at, updated_at)
        VALUES ('a', 'u', 'older-writer', 600, 659.5)`,
    );
    const rows = await minutes(schema);
    expect(rows.map((row) => row.id)).toEqual(['imported', 'older-writer', 's']);
    for (const row of rows) expect(row.updated_minute).toBe(Math.floor(row.updated_at / 60));
    expect(rows[1]?.updated_minute).toBe(10);
    await service.close();
  });

  it('deletes a session with its events, one appended while the delete waited too', async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'before' }) });
    const client = await fixture.pool.connect();
    try {
      await client.query('BEGIN');
      const row = prepareEventRow(userTextEvent({ text: 'while deleting' }));
      await insertPostgresEvent({ client, queries: buildQueries(schema), key, row });
      // The delete waits for the appender's lock on the session row, then sees its event.
      const deleting = service.deleteSession(key);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.query('COMMIT');
      await deleting;
    } finally {
      client.release();
    }
    expect(await eventCount(schema, 's')).toBe(0);
    expect(await service.getSession(key)).toBeUndefined();
    await service.close();
  });

  it('upgrades a version 9 schema: the minutes kept, deletes still take the events', async () => {
    const schema = await versionNineSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, created_at, updated_at)
        VALUES ('a', 'u', 's', 0, 125)`,
    );
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1, false, $1::json)`,
      [JSON.stringify(userTextEvent({ text: 'kept' }))],
    );
    await service.migrate();
    expect((await minutes(schema))[0]?.updated_minute).toBe(2);
    await service.deleteSession(key);
    expect(await eventCount(schema, 's')).toBe(0);
    await service.close();
  });

  it('upgrades a version 9 schema whose foreign key or generated minute is already gone', async () => {
    const schema = await versionNineSchema();
    // Changed by hand before the upgrade: the migration must not fail on either.
    await fixture.pool.query(
      `ALTER TABLE "${schema}".orrery_events
         DROP CONSTRAINT orrery_events_app_name_user_id_session_id_fkey`,
    );
    await fixture.pool.query(
      `ALTER TABLE "${schema}".orrery_sessions ALTER COLUMN updated_minute DROP EXPRESSION`,
    );
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    await service.migrate();
    await service.createSession(key);
    expect((await minutes(schema)).length).toBe(1);
    await service.close();
  });

  /** A new schema migrated up to version 9 (before migration 10). */
  async function versionNineSchema(): Promise<string> {
    const schema = fixture.newSchema();
    await migrate({
      pool: fixture.pool,
      schema,
      migrations: migrations.filter((migration) => migration.version <= 9),
    });
    return schema;
  }
});
