import { beforeAll, expect, it } from 'vitest';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { SessionStoreError } from '../errors.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

const app = 'app';
const user = 'u';

describePostgres('PostgreSQL corrupt rows', (url) => {
  const fixture = useSchemaFixture(url);
  let service: PostgresSessionService;

  beforeAll(async () => {
    service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    await service.migrate();
  });

  /** Events 1-6, a compaction of 1-4 at seq 7, event 8. */
  async function seed(sessionId: string) {
    const key = { appName: app, userId: user, sessionId };
    await service.createSession(key);
    for (let index = 1; index <= 6; index++) {
      await service.appendEvent({ ...key, event: userTextEvent({ text: `m${index}` }) });
    }
    await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 4 }),
      expectedCheckpointSeq: null,
    });
    await service.appendEvent({ ...key, event: userTextEvent({ text: 'm8' }) });
    return key;
  }

  async function corrupt(sessionId: string, seq: number, json: string) {
    await fixture.pool.query(
      `UPDATE "${fixture.schema}".orrery_events SET event = $3::jsonb
       WHERE app_name = $1 AND session_id = $2 AND seq = $4`,
      [app, sessionId, json, seq],
    );
  }

  async function failure(promise: Promise<unknown>): Promise<SessionStoreError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!SessionStoreError.isInstance(error)) throw new Error(`expected a SessionStoreError`);
    return error;
  }

  it('names session and seq, and the rest of the session still reads', async () => {
    const key = await seed('old-row');
    await corrupt('old-row', 2, '{"id": 5, "actions": {}}');
    // seq 2 is behind the checkpoint: the view does not touch it.
    const view = await service.loadView(key);
    expect(view.tail.map((event) => event.seq)).toEqual([5, 6, 8]);
    expect((await service.listEvents({ ...key, afterSeq: 2 })).events).toHaveLength(6);
    // Thunks: each read starts only when awaited, so no rejection waits unhandled.
    for (const read of [
      () => service.getSession({ ...key, events: 'full' }),
      () => service.listEvents(key),
      () => service.listEvents({ ...key, order: 'desc' }),
    ]) {
      const error = await failure(read());
      expect(error).toMatchObject({ sessionId: 'old-row', seq: 2 });
      expect(error.message).toContain("at seq 2 in session 'old-row'");
      expect(error.message).toContain("'id'");
    }
  });

  it('fails the view on a corrupt tail event, naming it', async () => {
    const key = await seed('tail-row');
    await corrupt('tail-row', 5, '{"id": "x", "invocationId": "i", "author": "a", "actions": {}}');
    const error = await failure(service.loadView(key));
    expect(error).toMatchObject({ sessionId: 'tail-row', seq: 5 });
    expect(error.message).toContain("'timestamp'");
    const content = await failure(
      (async () => {
        await corrupt(
          'tail-row',
          6,
          '{"id": "x", "invocationId": "i", "author": "a", "timestamp": 1, "actions": {}, "content": {"role": "tool", "parts": []}}',
        );
        return service.listEvents({ ...key, afterSeq: 5 });
      })(),
    );
    expect(content).toMatchObject({ seq: 6 });
    expect(content.message).toContain("'content.role'");
  });

  it('fails on a corrupt checkpoint, and falls back to the previous one with onCorruptEvent', async () => {
    const key = await seed('checkpoint-row');
    await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 6, text: 'newer' }),
      expectedCheckpointSeq: 7,
    });
    await corrupt('checkpoint-row', 9, '[1, 2, 3]');
    const error = await failure(service.loadView(key));
    expect(error).toMatchObject({ sessionId: 'checkpoint-row', seq: 9 });

    const reported: SessionStoreError[] = [];
    const lenient = new PostgresSessionService({
      pool: fixture.pool,
      schema: fixture.schema,
      onCorruptEvent: (corruptError) => reported.push(corruptError),
    });
    const view = await lenient.loadView(key);
    expect(view.checkpoint?.seq).toBe(7);
    expect(view.tail.map((event) => event.seq)).toEqual([5, 6, 8]);
    expect(reported.map((entry) => entry.seq)).toEqual([9]);

    reported.length = 0;
    const full = await lenient.getSession({ ...key, events: 'full' });
    expect(full?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(reported.map((entry) => entry.seq)).toEqual([9]);
  });

  it.each([
    ['disagrees with its row (end 2)', 2],
    ['has a wrong digit (end 40)', 40],
  ])('never uses a checkpoint whose JSON range %s: falls back and says so', async (_, end) => {
    const key = await seed(`range-row-${end}`);
    await fixture.pool.query(
      `UPDATE "${fixture.schema}".orrery_events
       SET event = jsonb_set(event::jsonb, '{actions,compaction,endSeq}', $3::jsonb)
       WHERE app_name = $1 AND session_id = $2 AND seq = 7`,
      [app, key.sessionId, JSON.stringify(end)],
    );
    const view = await service.loadView(key);
    expect(view.checkpoint).toBeUndefined();
    expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 8]);
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'checkpoint_skipped', seq: 7 }),
    ]);
    expect(view.warnings?.[0]?.message).toContain(`1..${end}`);
    // A compaction planned from that view (no checkpoint) is not a conflict.
    await expect(
      service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 6 }),
        expectedCheckpointSeq: null,
      }),
    ).resolves.toMatchObject({ seq: 9 });
    expect((await service.loadView(key)).checkpoint?.seq).toBe(9);
  });

  it('never uses a compaction row past the session last seq', async () => {
    const key = await seed('ghost-row');
    const ghost = compactionEvent({ startSeq: 1, endSeq: 8 });
    await fixture.pool.query(
      `INSERT INTO "${fixture.schema}".orrery_events (app_name, user_id, session_id, seq, event_id,
         invocation_id, author, timestamp, is_compaction, compaction_start_seq, compaction_end_seq, event)
       VALUES ($1, $2, $3, 12, 'ghost', 'i', 'user', 1, true, 1, 8, $4::json)`,
      [app, user, key.sessionId, JSON.stringify(ghost)],
    );
    const view = await service.loadView(key);
    expect(view.lastSeq).toBe(8);
    expect(view.checkpoint?.seq).toBe(7);
    expect(view.tail.map((event) => event.seq)).toEqual([5, 6, 8]);
  });

  it('names session and seq of a function call with no id, typed and not retryable', async () => {
    const key = await seed('call-row');
    await corrupt(
      'call-row',
      8,
      JSON.stringify({
        id: 'x',
        invocationId: 'i',
        author: 'a',
        timestamp: 1,
        actions: {},
        content: { role: 'model', parts: [{ functionCall: { name: 'search', args: {} } }] },
      }),
    );
    for (const read of [() => service.loadView(key), () => service.listEvents(key)]) {
      const error = await failure(read());
      expect(error).toMatchObject({ sessionId: 'call-row', seq: 8, retryable: false });
      expect(error.message).toContain("field 'content.parts[0].functionCall.id'");
    }
  });
});
