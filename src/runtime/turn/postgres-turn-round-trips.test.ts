/**
 * What one quiet Runner turn asks of the PostgreSQL store, counted on the pool's connections
 * (each statement is a network round trip; docs/performance.md, round trips): the lease taken,
 * the user's message appended and the view read in one statement, the answer appended, the
 * lease released. The turn's own appends stay in the store's view cache, so the next take
 * returns no event row.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { PostgresSessionService } from '../../sessions/postgres/postgres-session-service.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../sessions/postgres/test-helpers/pg-test-env.js';
import {
  recordStatements,
  type SentStatement,
} from '../../sessions/postgres/test-helpers/record-statements.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Plugin } from '../plugins/plugin.js';
import { Runner } from './runner.js';

describePostgres('a quiet Runner turn on PostgreSQL', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'user', sessionId: 'quiet' };
  let pool: pg.Pool;
  let service: PostgresSessionService;
  let sent: SentStatement[];
  let runner: Runner;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    sent = recordStatements(pool);
    service = new PostgresSessionService({ pool, schema: fixture.schema });
    await service.createSession(key);
    runner = newRunner();
  });
  afterAll(async () => {
    await service.close();
    await pool.end();
  });

  const newRunner = (plugins?: Plugin[]) =>
    new Runner({
      appName: key.appName,
      plugins,
      agent: new LlmAgent({
        name: 'agent',
        model: {
          modelId: 'stub',
          contextWindowTokens: 1_000_000,
          generate: async () =>
            textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
        },
      }),
      sessionService: service,
      compaction: {
        tokenThreshold: 250_000,
        eventRetentionSize: 10,
        summarizer: new DigestSummarizer(),
      },
      logger: false,
    });

  const turn = async (on = runner, sessionId = key.sessionId) => {
    const authors: string[] = [];
    for await (const event of on.run({ ...key, sessionId, newMessage: 'next' })) {
      authors.push(event.author);
    }
    return authors;
  };

  it('sends 3 statements: lease, message and view; the answer; release; all prepared', async () => {
    await turn(); // the first read of the session fills the view cache
    sent.length = 0;
    expect(await turn()).toEqual(['user', 'agent']);
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken', // the lease taken, the user's message appended, the rows appended since
      'WITH s', // the answer: seq and insert
      'WITH commit_mode', // the lease released (marked free, its row kept)
    ]);
    expect(sent.every((statement) => statement.named)).toBe(true);
    // The previous turn's appends are in the view cache: the take returned no event row.
    expect(sent[0]?.rows.filter((row) => row.part === 2).length).toBe(0);
    const session = await service.getSession({ ...key, events: 'full' });
    expect(session?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });

  it("reads another writer's append in the same statement, and only it", async () => {
    const other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    try {
      await other.appendEvent({ ...key, event: userTextEvent({ text: 'from elsewhere' }) });
    } finally {
      await other.close();
    }
    sent.length = 0;
    expect(await turn()).toEqual(['user', 'agent']);
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken',
      'WITH s',
      'WITH commit_mode',
    ]);
    expect(sent[0]?.rows.filter((row) => row.part === 2).length).toBe(1);
    const view = await service.loadView(key);
    expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const authors = ['user', 'agent', 'user', 'agent', 'user', 'user', 'agent'];
    expect(view.tail.map((event) => event.author)).toEqual(authors);
  });

  it("with a plugin, the message goes through its hook and the take doesn't append it", async () => {
    const hooked = newRunner([
      {
        name: 'shout',
        onEvent: ({ event }) =>
          event.author === 'user'
            ? { ...event, content: { role: 'user', parts: [{ text: 'NEXT' }] } }
            : event,
      },
    ]);
    sent.length = 0;
    expect(await turn(hooked)).toEqual(['user', 'agent']);
    // As before the fold: the take reads, the hooked message is its own append; with plugins
    // the view is read before the model call and after the turn (no tracked view).
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken',
      'WITH s',
      'SELECT 0',
      'WITH s',
      'SELECT 0',
      'WITH commit_mode',
    ]);
    const session = await service.getSession({ ...key, events: 'full' });
    expect(session?.events.at(-2)?.content?.parts?.[0]?.text).toBe('NEXT');
  });

  it('a missing session: SessionNotFoundError, nothing appended, the lease released', async () => {
    sent.length = 0;
    await expect(turn(runner, 'missing')).rejects.toThrow(SessionNotFoundError);
    expect(sent.map((statement) => statement.words)).toEqual(['WITH taken', 'WITH commit_mode']);
    const lease = await service.acquireLease({ ...key, sessionId: 'missing', waitMs: 0 });
    await lease.release();
    expect(await service.getSession({ ...key, sessionId: 'missing' })).toBeUndefined();
  });

  it('a session held by another holder: SessionBusyError past waitMs, nothing appended', async () => {
    const impatient = new Runner({
      appName: key.appName,
      agent: new LlmAgent({
        name: 'agent',
        model: { modelId: 'stub', generate: async () => textResponse('never') },
      }),
      sessionService: service,
      sessionLease: { waitMs: 30 },
      logger: false,
    });
    const before = await service.getSession({ ...key, events: 'full' });
    const other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    try {
      const held = await other.acquireLease(key);
      await expect(turn(impatient)).rejects.toThrow(/busy|waited/i);
      await held.release();
    } finally {
      await other.close();
    }
    const after = await service.getSession({ ...key, events: 'full' });
    expect(after?.events.length).toBe(before?.events.length);
  });
});
