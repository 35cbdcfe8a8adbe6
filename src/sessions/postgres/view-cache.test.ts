/**
 * The PostgreSQL store's view cache (view-cache.ts): two instances (two replicas, each its own
 * pool) on one schema; every read of the caching one equals a fresh read of an instance with
 * the cache off, while the other appends events and compactions or deletes and recreates the
 * session; and a read after foreign appends parses only those rows.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { compactionEvent, modelTextEvent, userTextEvent } from '../../testing/event-builders.js';
import { PostgresEventReader } from './event-reader.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

describePostgres('PostgreSQL view cache across replicas', (url) => {
  const fixture = useSchemaFixture(url);
  let cached: PostgresSessionService;
  let other: PostgresSessionService;
  let fresh: PostgresSessionService;
  const key = { appName: 'app', userId: 'user', sessionId: 'cached' };

  beforeAll(async () => {
    cached = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    fresh = new PostgresSessionService({
      pool: fixture.pool,
      schema: fixture.schema,
      viewCache: { sessions: 0 },
    });
    await cached.createSession(key);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await Promise.all([cached.close(), other.close()]);
  });

  async function expectSameView(): Promise<void> {
    expect(await cached.loadView(key)).toEqual(await fresh.loadView(key));
    expect((await cached.getSession(key))?.events).toEqual((await fresh.getSession(key))?.events);
  }

  it('follows appends and compactions by another replica, and a recreated session', async () => {
    for (let round = 0; round < 4; round++) {
      await cached.appendEvent({ ...key, event: userTextEvent({ text: `u${round}` }) });
      await expectSameView();
      await other.appendEvent({ ...key, event: modelTextEvent({ text: `a${round}` }) });
      await expectSameView();
    }
    await other.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 5 }),
      expectedCheckpointSeq: null,
    });
    await other.appendEvent({ ...key, event: userTextEvent({ text: 'after' }) });
    await expectSameView();
    expect((await cached.loadView(key)).checkpoint?.actions.compaction.endSeq).toBe(5);
    const lastSeq = (await cached.loadView(key)).lastSeq;
    // A session's identity is its creation time: recreated a second later here.
    const later = Date.now() + 1_000;
    const clock = vi.spyOn(Date, 'now').mockReturnValue(later);
    await other.deleteSession(key);
    await other.createSession(key);
    clock.mockRestore();
    for (let index = 0; index < lastSeq; index++) {
      await other.appendEvent({ ...key, event: userTextEvent({ text: `new ${index}` }) });
    }
    await expectSameView();
    expect((await cached.loadView(key)).tail[0]?.content?.parts[0]?.text).toBe('new 0');
  });

  it('parses only the rows another replica appended since its last read', async () => {
    const session = { ...key, sessionId: 'counted' };
    await cached.createSession(session);
    for (let index = 0; index < 50; index++) {
      await cached.appendEvent({ ...session, event: userTextEvent({ text: `m${index}` }) });
    }
    await cached.loadView(session);
    await other.appendEvent({ ...session, event: userTextEvent({ text: 'x1' }) });
    await other.appendEvent({ ...session, event: userTextEvent({ text: 'x2' }) });
    // Rows turned into checked events by the store (parsed and validated), counted.
    const parse = vi.spyOn(PostgresEventReader.prototype, 'parseRows');
    const view = await cached.loadView(session);
    expect(view.tail).toHaveLength(52);
    const rowsParsed = parse.mock.calls.reduce((sum, [rows]) => sum + rows.length, 0);
    expect(rowsParsed).toBe(2);
    parse.mockRestore();
  });
});
