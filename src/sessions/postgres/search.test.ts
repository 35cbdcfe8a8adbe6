import { expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { migrate, migrations } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

const key = { appName: 'a', userId: 'u', sessionId: 's' };

describePostgres('PostgreSQL history search', (url) => {
  const fixture = useSchemaFixture(url);

  it('indexes the events of a schema created before search existed (version 3)', async () => {
    const schema = fixture.newSchema();
    await migrate({
      pool: fixture.pool,
      schema,
      migrations: migrations.filter((migration) => migration.version <= 3),
    });
    const event: NewEvent = userTextEvent({
      id: 'e1',
      invocationId: 'i1',
      timestamp: 1_700_000_001,
      text: 'the old albatross fact',
    });
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_sessions (app_name, user_id, id, last_seq, event_count, created_at, updated_at)
       VALUES ('a', 'u', 's', 1, 1, 0, 0)`,
    );
    await fixture.pool.query(
      `INSERT INTO "${schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, event)
       VALUES ('a', 'u', 's', 1, 'e1', 'i1', 'user', 1700000001, false, $1::json)`,
      [JSON.stringify(event)],
    );
    const service = new PostgresSessionService({ pool: fixture.pool, schema });
    const hits = await service.searchEvents({ ...key, query: 'albatross' });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
    expect(hits[0]?.event).toEqual({ ...event, seq: 1 });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'a new albatross' }) });
    const after = await service.searchEvents({ ...key, query: 'albatross' });
    expect(after.map((hit) => hit.seq).sort()).toEqual([1, 2]);
  });

  it('stores and finds an event whose text holds a NUL character', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    await service.createSession(key);
    const stored = await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'binary \u0000 output from the flamingo tool' }),
    });
    const hits = await service.searchEvents({ ...key, query: 'flamingo' });
    expect(hits.map((hit) => hit.event)).toStrictEqual([stored]);
  });

  it('splits paths and identifiers into words, as the other stores do', async () => {
    const service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.newSchema() });
    await service.createSession(key);
    await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'edited src/payments/refund_policy.ts and user@example.com' }),
    });
    for (const query of ['refund', 'policy', 'payments', 'example']) {
      expect(
        (await service.searchEvents({ ...key, query })).map((hit) => hit.seq),
        query,
      ).toEqual([1]);
    }
  });
});
