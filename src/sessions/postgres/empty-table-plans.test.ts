/**
 * A turn's statements keep their index plans when PostgreSQL made their generic plan on an empty
 * table: a new deployment prepares them before autovacuum has statistics, and a cached generic
 * plan is kept as the table grows (the serve bench's PostgreSQL floor read its history with a
 * bitmap scan of the whole session and a sort that way: docs/performance.md, "PostgreSQL against
 * SQLite at the same durability"). Each statement is prepared on an empty schema with
 * `plan_cache_mode = force_generic_plan`, the plan it would keep.
 */
import { beforeAll, expect, it } from 'vitest';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries, type Queries } from './queries.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { type PlanNode, planNodes } from './test-helpers/plan-nodes.js';

/**
 * The statements of a quiet turn and of a read with the view cached or not, and whether each
 * reads events (the appends read back only the row they insert).
 */
const hotStatements: [keyof Queries, boolean][] = [
  ['view', true],
  ['viewSince', true],
  ['leaseAndViewSince', true],
  ['leaseAndAppend', true],
  ['appendEvent', false],
  ['appendAndRelease', false],
];

/** How many parameters a statement's text takes (its highest `$n`). */
function parameterCount(text: string): number {
  let highest = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) highest = Math.max(highest, Number(match[1]));
  return highest;
}

describePostgres('PostgreSQL plans made on empty tables', (url) => {
  const fixture = useSchemaFixture(url);

  beforeAll(async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    // Migrated, one session, no event: what a new deployment's first turn plans against.
    await service.createSession({ appName: 'app', userId: 'user', sessionId: 'new' });
  });

  it.each(hotStatements)('%s reads orrery_events by an index only', async (name, readsEvents) => {
    const statement = buildQueries(fixture.schema)[name];
    const text = typeof statement === 'string' ? statement : statement.text;
    const client = await fixture.pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE empty_table_plan AS ${text}`);
      const nulls = Array.from({ length: parameterCount(text) }, () => 'NULL').join(', ');
      const explained = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (FORMAT JSON) EXECUTE empty_table_plan(${nulls})`,
      );
      const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
      if (!plan) throw new Error(`no plan for ${name}`);
      const eventScans = planNodes(plan).filter(
        (node) => node['Relation Name'] === 'orrery_events' && node['Node Type'].includes('Scan'),
      );
      expect(eventScans.length > 0).toBe(readsEvents);
      for (const node of eventScans) {
        expect(['Index Scan', 'Index Only Scan']).toContain(node['Node Type']);
      }
    } finally {
      await client.query('DEALLOCATE ALL');
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  });
});
