import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { userTextEvent } from '../../testing/event-builders.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';

/** The first words of every statement the service's connections send, in order. */
function recordStatements(pool: pg.Pool): string[] {
  const statements: string[] = [];
  const patched = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (patched.has(client)) return;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const first = args[0] as string | { text: string };
      const text = typeof first === 'string' ? first : first.text;
      statements.push(text.trim().split(/\s+/).slice(0, 2).join(' '));
      return query(...args);
    };
  });
  return statements;
}

describePostgres('PostgreSQL appends: statements per append', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'alice', sessionId: 'round-trips' };
  let pool: pg.Pool;
  let service: PostgresSessionService;
  let statements: string[];

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 8 });
    statements = recordStatements(pool);
    service = new PostgresSessionService({ pool, schema: fixture.schema });
    await service.createSession(key);
  });
  afterAll(async () => {
    await service.close();
    await pool.end();
  });
  beforeEach(() => {
    statements.length = 0;
  });

  it('an event without app: or user: state is one auto-committed statement', async () => {
    const stored = await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'one', actions: { stateDelta: { topic: 'x' } } }),
    });
    expect(statements).toEqual(['WITH s']);
    const session = await service.getSession({ ...key, events: 'full' });
    expect(session?.events.map((event) => event.seq)).toEqual([stored.seq]);
    expect(session?.state).toEqual({ topic: 'x' });
  });

  it('app: and user: state go in one transaction with the event', async () => {
    await service.appendEvent({
      ...key,
      event: userTextEvent({
        text: 'two',
        actions: { stateDelta: { 'app:mode': 'a', 'user:name': 'Al' } },
      }),
    });
    expect(statements).toEqual(['BEGIN', 'WITH s', 'INSERT INTO', 'INSERT INTO', 'COMMIT']);
    const session = await service.getSession(key);
    expect(session?.state).toMatchObject({ topic: 'x', 'app:mode': 'a', 'user:name': 'Al' });
  });

  it('concurrent single-statement appends to one session get seqs without gaps', async () => {
    const before = await service.loadView(key);
    const stored = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        service.appendEvent({ ...key, event: userTextEvent({ text: `c${index}` }) }),
      ),
    );
    const seqs = stored.map((event) => event.seq).sort((left, right) => left - right);
    expect(seqs).toEqual(Array.from({ length: 24 }, (_, index) => before.lastSeq + index + 1));
    const page = await service.listEvents({ ...key, afterSeq: before.lastSeq });
    expect(page.events.map((event) => event.seq)).toEqual(seqs);
  });

  it('an append to a missing session stores nothing and says which session', async () => {
    const missing = { ...key, sessionId: 'missing' };
    await expect(
      service.appendEvent({ ...missing, event: userTextEvent({ text: 'lost' }) }),
    ).rejects.toMatchObject({ name: 'SessionNotFoundError' });
    const count = await pool.query(
      'SELECT count(*)::int AS n FROM ' +
        `"${fixture.schema}".orrery_events WHERE session_id = 'missing'`,
    );
    expect(count.rows[0]).toEqual({ n: 0 });
  });
});
