import { expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { insertPostgresEvent } from './event-writer.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries } from './queries.js';
import { prepareEventRow } from './rows.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL session row', (url) => {
  const fixture = useSchemaFixture(url);

  it('is updated in place (HOT) by appends within a minute: no indexed column changes', async () => {
    const key = { appName: 'a', userId: 'u', sessionId: 'hot' };
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    await service.createSession(key);
    const queries = buildQueries(fixture.schema);
    const client = await fixture.pool.connect();
    try {
      // This transaction's own counts: no wait for the statistics collector.
      await client.query('BEGIN');
      const appends = 4;
      for (let index = 0; index < appends; index++) {
        const row = prepareEventRow(userTextEvent({ text: `message ${index}` }));
        await insertPostgresEvent({ client, queries, key, row });
      }
      const { rows } = await client.query<{ updated: string; hot: string }>(
        `SELECT pg_stat_get_xact_tuples_updated($1::regclass) AS updated,
            pg_stat_get_xact_tuples_hot_updated($1::regclass) AS hot`,
        [`"${fixture.schema}".orrery_sessions`],
      );
      await client.query('COMMIT');
      expect(Number(rows[0]?.updated)).toBe(appends);
      // A minute may turn between two appends: that one update is not HOT.
      expect(Number(rows[0]?.hot)).toBeGreaterThanOrEqual(appends - 1);
    } finally {
      client.release();
    }
    const listed = await service.listSessions({ appName: 'a', userId: 'u' });
    expect(listed.map((session) => [session.sessionId, session.eventCount])).toEqual([['hot', 4]]);
    await service.close();
  });
});
