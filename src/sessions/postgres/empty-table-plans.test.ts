/**
 * A turn's statements keep their index plans when PostgreSQL made their generic plan on an empty
 * table: a new deployment prepares them before autovacuum has statistics, and a cached generic
 * plan is kept as the table grows (the serve bench's PostgreSQL floor read its history with a
 * bitmap scan of the whole session and a sort that way: docs/performance.md, "PostgreSQL against
 * SQLite at the same durability"). Each statement's generic plan is made on an empty schema
 * (`genericPlan`), the plan it would keep.
 */
import { beforeAll, expect, it } from 'vitest';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries, type Queries } from './queries.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { genericPlan, planNodes } from './test-helpers/plan-nodes.js';

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
    const plan = await genericPlan(fixture.pool, fixture.schema, text);
    const eventScans = planNodes(plan).filter(
      (node) => node['Relation Name'] === 'orrery_events' && node['Node Type'].includes('Scan'),
    );
    expect(eventScans.length > 0).toBe(readsEvents);
    for (const node of eventScans) {
      expect(['Index Scan', 'Index Only Scan']).toContain(node['Node Type']);
    }
  });
});
