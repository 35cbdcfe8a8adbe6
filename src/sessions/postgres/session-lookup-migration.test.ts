import { expect, it } from 'vitest';
import { buildListAllSessionsStatement } from './list-all-sessions.js';
import { migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries } from './queries.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { genericPlan, type PlanNode, planNodes } from './test-helpers/plan-nodes.js';

/** How each plan node reads `orrery_sessions`: an index's name or the node type. */
function sessionReads(plan: PlanNode): string[] {
  return planNodes(plan)
    .filter(
      (node) => node['Relation Name'] === 'orrery_sessions' && node['Node Type'] !== 'ModifyTable',
    )
    .map((node) => node['Index Name'] ?? node['Node Type']);
}

describePostgres('PostgreSQL session lookups by primary key (migration 12)', (url) => {
  const fixture = useSchemaFixture(url);

  it("a turn's statements find the session by its primary key on a table without statistics", async () => {
    const schema = fixture.newSchema();
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    // One user with many sessions, never analyzed: the planner has no statistics.
    for (let index = 0; index < 300; index++) {
      await service.createSession({ appName: 'app', userId: 'u', sessionId: `s${index}` });
    }
    const queries = buildQueries(schema);
    for (const statement of [
      queries.leaseAndAppend,
      queries.appendAndRelease,
      queries.appendEvent,
      queries.viewSince,
      queries.view,
    ]) {
      const reads = sessionReads(await genericPlan(fixture.pool, schema, statement.text));
      expect(reads.length).toBeGreaterThan(0);
      expect(new Set(reads)).toEqual(new Set(['orrery_sessions_pkey']));
    }
    // The listings keep their indexes (no sort of the whole table when told to avoid one).
    const client = await fixture.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      const explain = async (text: string, values: unknown[]) =>
        (
          await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (FORMAT JSON) ${text}`,
            values,
          )
        ).rows[0]?.['QUERY PLAN'][0].Plan as PlanNode;
      const own = await explain(queries.listSessions, ['app', 'u']);
      expect(sessionReads(own)).toEqual(['orrery_sessions_user_minute']);
      const all = buildListAllSessionsStatement(`"${schema}"`, { limit: 50 });
      expect(sessionReads(await explain(all.text, all.values))).toEqual(['orrery_sessions_minute']);
      const app = buildListAllSessionsStatement(`"${schema}"`, { appName: 'app', limit: 50 });
      expect(sessionReads(await explain(app.text, app.values))).toEqual([
        'orrery_sessions_app_minute',
      ]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    const listed = await service.listSessions({ appName: 'app', userId: 'u' });
    expect(listed).toHaveLength(300);
  });

  it('upgrades a version 11 schema: a session without a minute gets one and stays listed', async () => {
    const schema = fixture.newSchema();
    await migrate({ pool: fixture.pool, schema, migrations: migrations.slice(0, 11) });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, created_at, updated_at)
        VALUES ('app', 'u', 'kept', 1200, 1234.5)`,
    );
    // Left without a minute (a hand-made update: the writers and the trigger always set one).
    await fixture.pool.query(`UPDATE "${schema}".orrery_sessions SET updated_minute = NULL`);
    const after = new PostgresSessionService({ pool: fixture.pool, schema });
    const listed = await after.listSessions({ appName: 'app', userId: 'u' });
    expect(listed.map((session) => session.sessionId)).toEqual(['kept']);
    const { rows } = await fixture.pool.query<{ updated_minute: number; nullable: string }>(
      `SELECT updated_minute, (SELECT is_nullable FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'orrery_sessions'
            AND column_name = 'updated_minute') AS nullable
        FROM "${schema}".orrery_sessions`,
      [schema],
    );
    expect(rows).toEqual([{ updated_minute: 20, nullable: 'NO' }]);
    await after.close();
  });
});
