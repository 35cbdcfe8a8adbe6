/**
 * What one quiet Runner turn asks of the PostgreSQL store, counted on the pool's connections
 * (each statement is a network round trip; docs/performance.md, round trips): the lease taken,
 * the user's message appended and the view read in one statement, then the answer appended and
 * the lease released in another. The turn's own appends stay in the store's view cache, so the
 * next take returns no event row. A turn whose compaction is due keeps the answer, the
 * compaction and the release apart, in that order.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { quoteIdentifier } from '../../sessions/postgres/migrations.js';
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
import { textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from '../tools/function-tool.js';
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

  const newRunner = (
    options: { plugins?: Plugin[]; tokenThreshold?: number; background?: boolean } = {},
  ) =>
    new Runner({
      appName: key.appName,
      plugins: options.plugins,
      background: options.background,
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
        tokenThreshold: options.tokenThreshold ?? 250_000,
        eventRetentionSize: options.tokenThreshold === undefined ? 10 : 2,
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

  it('sends 2 statements: lease, message and view; the answer and the release', async () => {
    await turn(); // the first read of the session fills the view cache
    sent.length = 0;
    expect(await turn()).toEqual(['user', 'agent']);
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken', // the lease taken, the user's message appended, the rows appended since
      'WITH released', // the lease released (marked free), the answer's seq and insert
    ]);
    expect(sent.every((statement) => statement.named)).toBe(true);
    // Released: another holder takes the session at once.
    const other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    try {
      const lease = await other.acquireLease({ ...key, waitMs: 0 });
      await lease.release();
    } finally {
      await other.close();
    }
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
    expect(sent.map((statement) => statement.words)).toEqual(['WITH taken', 'WITH released']);
    expect(sent[0]?.rows.filter((row) => row.part === 2).length).toBe(1);
    const view = await service.loadView(key);
    expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const authors = ['user', 'agent', 'user', 'agent', 'user', 'user', 'agent'];
    expect(view.tail.map((event) => event.author)).toEqual(authors);
  });

  it("with a plugin, the message goes through its hook and the take doesn't append it", async () => {
    const hooked = newRunner({
      plugins: [
        {
          name: 'shout',
          onEvent: ({ event }) =>
            event.author === 'user'
              ? { ...event, content: { role: 'user', parts: [{ text: 'NEXT' }] } }
              : event,
        },
      ],
    });
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

  it('a turn with a tool call: the call and its response are plain appends', async () => {
    let step = 0;
    const tooled = new Runner({
      appName: key.appName,
      agent: new LlmAgent({
        name: 'agent',
        model: {
          modelId: 'stub',
          generate: async () =>
            step++ % 2 === 0
              ? toolCallResponse([{ id: `call-${step}`, name: 'look', args: {} }])
              : textResponse('found'),
        },
        tools: [
          new FunctionTool({
            name: 'look',
            description: 'Looks',
            parameters: z.object({}),
            execute: async () => ({ seen: true }),
          }),
        ],
      }),
      sessionService: service,
      compaction: quietCompaction(),
      logger: false,
    });
    await warmSession(tooled, 'tooled');
    expect(await turn(tooled, 'tooled')).toEqual(['user', 'agent', 'agent', 'agent']);
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken',
      'WITH s', // the call
      'WITH s', // its response (authored by the agent, no call in it: not the answer)
      'WITH released', // the answer and the release
    ]);
    await expectFree('tooled');
  });

  it("another writer's append after the check's view: the answer after it, the next take reads it", async () => {
    const sessionId = 'written-meanwhile';
    const other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    let write = false;
    const racing = new Runner({
      appName: key.appName,
      agent: new LlmAgent({
        name: 'agent',
        model: {
          modelId: 'stub',
          generate: async () => {
            // During the model call: the turn's known view does not have it.
            if (write) {
              await other.appendEvent({
                ...key,
                sessionId,
                event: userTextEvent({ text: 'meanwhile' }),
              });
            }
            return textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 });
          },
        },
      }),
      sessionService: service,
      compaction: quietCompaction(),
      logger: false,
    });
    try {
      await warmSession(racing, sessionId);
      write = true;
      expect(await turn(racing, sessionId)).toEqual(['user', 'agent']);
      write = false;
      // Released with the answer all the same; the answer follows the other writer's event.
      expect(sent.map((statement) => statement.words)).toEqual(['WITH taken', 'WITH released']);
      const session = await service.getSession({ ...key, sessionId, events: 'full' });
      const texts = session?.events.map((event) => event.content?.parts?.[0]?.text);
      expect(texts?.slice(-3)).toEqual(['next', 'meanwhile', 'ok']);
      // The next turn's take reads both rows it does not know (the checks then see them).
      sent.length = 0;
      expect(await turn(racing, sessionId)).toEqual(['user', 'agent']);
      expect(sent[0]?.rows.filter((row) => row.part === 2).length).toBe(2);
    } finally {
      await other.close();
    }
  });

  /** A session of its own, with one warm turn (the view cached). */
  const warmSession = async (on: Runner, sessionId: string) => {
    await service.createSession({ ...key, sessionId });
    await turn(on, sessionId);
    sent.length = 0;
  };

  /** The lease is free: another holder takes it at once. */
  const expectFree = async (sessionId: string) => {
    const other = new PostgresSessionService({ connectionString: url, schema: fixture.schema });
    try {
      const lease = await other.acquireLease({ ...key, sessionId, waitMs: 0 });
      await lease.release();
    } finally {
      await other.close();
    }
  };

  for (const background of [false, true]) {
    const mode = background ? 'in the background' : 'in the turn';
    it(`a turn whose compaction is due, ${mode}: the answer, the compaction, the release`, async () => {
      const due = newRunner({ tokenThreshold: 500, background });
      const sessionId = `due-${background}`;
      await warmSession(due, sessionId);
      await due.flush();
      sent.length = 0;
      expect(await turn(due, sessionId)).toEqual(['user', 'agent']);
      await due.flush();
      const words = sent.map((statement) => statement.words);
      // The take, the compaction before the model call and the view read again, then:
      expect(words[0]).toBe('WITH taken');
      expect(words.slice(-7)).toEqual([
        'WITH s', // the answer, a plain append
        'BEGIN', // the after-invocation compaction: the lock, the checkpoint, its event
        'SELECT last_seq',
        'SELECT seq,',
        'WITH s',
        'COMMIT',
        'WITH commit_mode', // then the release, as before
      ]);
      expect(words).not.toContain('WITH released');
      const session = await service.getSession({ ...key, sessionId, events: 'full' });
      expect(session?.events.some((event) => event.actions?.compaction)).toBe(true);
      await expectFree(sessionId);
    });
  }

  it('in the background, a quiet turn also sends 2 statements and starts no compaction', async () => {
    const quiet = newRunner({ background: true });
    await warmSession(quiet, 'background-quiet');
    await quiet.flush();
    sent.length = 0;
    expect(await turn(quiet, 'background-quiet')).toEqual(['user', 'agent']);
    await quiet.flush();
    expect(sent.map((statement) => statement.words)).toEqual(['WITH taken', 'WITH released']);
    await expectFree('background-quiet');
  });

  it('a failed answer-and-release: the error, the lease released after it, nothing twice', async () => {
    const sessionId = 'answer-refused';
    await warmSession(runner, sessionId);
    const schema = quoteIdentifier(fixture.schema);
    await fixture.pool.query(`CREATE FUNCTION ${schema}.refuse_answer() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.author = 'agent' THEN RAISE EXCEPTION 'answer refused by the test'; END IF;
        RETURN NEW; END $$`);
    await fixture.pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON ${schema}.orrery_events
      FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse_answer()`);
    try {
      await expect(turn(runner, sessionId)).rejects.toThrow(/answer refused by the test/);
    } finally {
      await fixture.pool.query(`DROP TRIGGER refuse ON ${schema}.orrery_events`);
    }
    // The folded statement rolled back whole; the Runner released the lease as before.
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken',
      'WITH released',
      'WITH commit_mode',
    ]);
    await expectFree(sessionId);
    const session = await service.getSession({ ...key, sessionId, events: 'full' });
    expect(session?.events.map((event) => event.author)).toEqual(['user', 'agent', 'user']);
    // The next turn answers after the stored message, at the next seq.
    expect(await turn(runner, sessionId)).toEqual(['user', 'agent']);
    const after = await service.getSession({ ...key, sessionId, events: 'full' });
    expect(after?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
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

/** Compaction checked every turn, none due at these sizes (the serve bench's settings). */
function quietCompaction() {
  return { tokenThreshold: 250_000, eventRetentionSize: 10, summarizer: new DigestSummarizer() };
}
