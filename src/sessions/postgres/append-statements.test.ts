import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { PostgresSessionService } from './postgres-session-service.js';
import type { SynchronousCommit } from './synchronous-commit.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { recordStatements, type SentStatement } from './test-helpers/record-statements.js';

describePostgres('PostgreSQL appends: statements per append', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'alice', sessionId: 'round-trips' };
  let pool: pg.Pool;
  let service: PostgresSessionService;
  let statements: SentStatement[];

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
    expect(statements.map((statement) => statement.words)).toEqual(['WITH s']);
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
    expect(statements.map((statement) => statement.words)).toEqual([
      'BEGIN',
      'WITH s',
      'INSERT INTO',
      'INSERT INTO',
      'COMMIT',
    ]);
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

describePostgres('PostgreSQL appends: synchronousCommit', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'bob', sessionId: 'commit-mode' };
  let pool: pg.Pool;
  let service: PostgresSessionService;
  let statements: SentStatement[];

  beforeAll(async () => {
    // One connection: the setting must not outlive the write on the connection it used.
    pool = new pg.Pool({ connectionString: url, max: 1 });
    statements = recordStatements(pool);
    service = new PostgresSessionService({
      pool,
      schema: fixture.schema,
      synchronousCommit: 'off',
    });
    await service.createSession(key);
  });
  afterAll(async () => {
    await service.close();
    await pool.end();
  });
  beforeEach(() => {
    statements.length = 0;
  });

  it('refuses a value PostgreSQL does not have, naming the option', () => {
    const create = () =>
      new PostgresSessionService({
        pool: fixture.pool,
        synchronousCommit: 'sometimes' as SynchronousCommit,
      });
    expect(create).toThrow(InvalidArgumentError);
    expect(create).toThrow(/synchronousCommit: must be one of on, off, .* got "sometimes"/);
  });

  it('one statement sets it for its own commit only; the connection keeps the default', async () => {
    const serverDefault = (await fixture.pool.query('SHOW synchronous_commit')).rows[0];
    const stored = await service.appendEvent({ ...key, event: userTextEvent({ text: 'fast' }) });
    expect(statements.map((statement) => statement.words)).toEqual(['WITH commit_mode']);
    expect(statements[0]?.values.at(-1)).toBe('off');
    expect(stored.seq).toBe(1);
    const after = await pool.query('SHOW synchronous_commit');
    expect(after.rows[0]).toEqual(serverDefault);
    const view = await service.loadView(key);
    expect(view.tail.map((event) => event.id)).toEqual([stored.id]);
  });

  it('a transaction sets it after BEGIN, for that transaction', async () => {
    await service.appendEvent({
      ...key,
      event: userTextEvent({ text: 'shared', actions: { stateDelta: { 'user:seen': true } } }),
    });
    expect(statements.map((statement) => statement.words)).toEqual([
      'BEGIN',
      "SELECT set_config('synchronous_commit',",
      'WITH s',
      'INSERT INTO',
      'COMMIT',
    ]);
    expect(statements[1]?.values).toEqual(['off']);
    const session = await service.getSession(key);
    expect(session?.state).toEqual({ 'user:seen': true });
  });
});
