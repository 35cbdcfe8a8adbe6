/**
 * The active view must cost O(tail): its statement reads the checkpoint from the partial index
 * and the tail by a primary-key range, never by scanning the session's history.
 */
import { beforeAll, expect, it } from 'vitest';
import { PostgresSessionService } from './postgres-session-service.js';
import { buildQueries } from './queries.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { type PlanNode, planNodes } from './test-helpers/plan-nodes.js';

const key = { appName: 'app', userId: 'user', sessionId: 'long' };
const events = 20_000;

describePostgres('PostgreSQL view plan', (url) => {
  const fixture = useSchemaFixture(url);
  let service: PostgresSessionService;

  beforeAll(async () => {
    service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    await service.createSession(key);
    const schema = `"${fixture.schema}"`;
    // 20k events written in SQL (fast); a compaction every 1000th seq keeps the last 100 raw.
    await fixture.pool.query(
      `INSERT INTO ${schema}.orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, compaction_start_seq,
         compaction_end_seq, event)
       SELECT $1, $2, $3, seq, 'e' || seq, 'i' || seq, 'user', seq, seq % 1000 = 0,
         CASE WHEN seq % 1000 = 0 THEN 1 END, CASE WHEN seq % 1000 = 0 THEN seq - 100 END,
         CASE WHEN seq % 1000 = 0 THEN jsonb_build_object('id', 'e' || seq, 'invocationId',
           'i' || seq, 'author', 'user', 'timestamp', seq, 'actions', jsonb_build_object(
           'compaction', jsonb_build_object('startSeq', 1, 'endSeq', seq - 100,
           'startTimestamp', 1, 'endTimestamp', seq - 100, 'trigger', 'manual',
           'tokensBefore', 1000, 'tokensAfter', 10, 'summarizer', 'test',
           'compactedContent', jsonb_build_object('role', 'model', 'parts',
           jsonb_build_array(jsonb_build_object('text', 'summary'))))))
         ELSE jsonb_build_object('id', 'e' || seq, 'invocationId', 'i' || seq, 'author', 'user',
           'timestamp', seq, 'actions', '{}'::jsonb, 'content', jsonb_build_object('role',
           'user', 'parts', jsonb_build_array(jsonb_build_object('text', repeat('x', 500))))) END
       FROM generate_series(1, $4::int) AS seq`,
      [key.appName, key.userId, key.sessionId, events],
    );
    await fixture.pool.query(
      `UPDATE ${schema}.orrery_sessions SET last_seq = $4, event_count = $4
       WHERE app_name = $1 AND user_id = $2 AND id = $3`,
      [key.appName, key.userId, key.sessionId, events],
    );
    await fixture.pool.query(`ANALYZE ${schema}.orrery_events`);
  });

  it('reads checkpoint + tail by index, never scanning the history', async () => {
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(events);
    expect(view.tail.map((event) => event.seq)).toEqual(
      Array.from({ length: 99 }, (_, index) => events - 100 + 1 + index),
    );
    const explained = await fixture.pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${buildQueries(fixture.schema).view.text}`,
      [key.appName, key.userId, key.sessionId, '{}'],
    );
    const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('no plan');
    const eventScans = planNodes(plan).filter((node) => node['Relation Name'] === 'orrery_events');
    expect(eventScans.map((node) => node['Node Type']).sort()).toEqual([
      'Index Scan',
      'Index Scan',
    ]);
    expect(eventScans.map((node) => node['Index Name']).sort()).toEqual([
      'orrery_events_checkpoint',
      'orrery_events_pkey',
    ]);
  });
});
