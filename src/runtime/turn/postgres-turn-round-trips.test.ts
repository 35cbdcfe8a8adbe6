/**
 * What one quiet Runner turn asks of the PostgreSQL store, counted on the pool's connections
 * (each statement is a network round trip; docs/performance.md, round trips): the lease taken
 * and the view read in one statement, each append one statement, the lease released. The
 * turn's own appends stay in the store's view cache, so the next take returns no event row.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresSessionService } from '../../sessions/postgres/postgres-session-service.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../sessions/postgres/test-helpers/pg-test-env.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from './runner.js';

interface Sent {
  /** The statement's first two words. */
  words: string;
  /** Whether it ran as a named prepared statement. */
  named: boolean;
  /** Event rows (part 2) it returned. */
  eventRows: number;
}

/** Every statement the pool's connections send, with what it returned. */
function recordStatements(pool: pg.Pool): Sent[] {
  const sent: Sent[] = [];
  const patched = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (patched.has(client)) return;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<pg.QueryResult>;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
      const first = args[0] as string | { text: string; name?: string };
      const text = typeof first === 'string' ? first : first.text;
      const entry: Sent = {
        words: text.trim().split(/\s+/).slice(0, 2).join(' '),
        named: typeof first !== 'string' && first.name !== undefined,
        eventRows: 0,
      };
      sent.push(entry);
      // pg-pool's own `pool.query` passes a callback (and gets no promise back).
      if (typeof args.at(-1) === 'function') return query(...args);
      return query(...args).then((result) => {
        entry.eventRows = result.rows.filter((row: { part?: number }) => row.part === 2).length;
        return result;
      });
    };
  });
  return sent;
}

describePostgres('a quiet Runner turn on PostgreSQL', (url) => {
  const fixture = useSchemaFixture(url);
  const key = { appName: 'app', userId: 'user', sessionId: 'quiet' };
  let pool: pg.Pool;
  let service: PostgresSessionService;
  let sent: Sent[];
  let runner: Runner;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    sent = recordStatements(pool);
    service = new PostgresSessionService({ pool, schema: fixture.schema });
    await service.createSession(key);
    runner = new Runner({
      appName: key.appName,
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
  });
  afterAll(async () => {
    await service.close();
    await pool.end();
  });

  const turn = async () => {
    const authors: string[] = [];
    for await (const event of runner.run({ ...key, newMessage: 'next' })) {
      authors.push(event.author);
    }
    return authors;
  };

  it('sends 4 statements: lease and view, two appends, release; all prepared', async () => {
    await turn(); // the first read of the session fills the view cache
    sent.length = 0;
    expect(await turn()).toEqual(['user', 'agent']);
    expect(sent.map((statement) => statement.words)).toEqual([
      'WITH taken', // the lease taken, the session row and the rows appended since
      'WITH s', // the user's message: seq and insert
      'WITH s', // the answer
      'WITH commit_mode', // the lease released (marked free, its row kept)
    ]);
    expect(sent.every((statement) => statement.named)).toBe(true);
    // The previous turn's appends are in the view cache: the take returned no event row.
    expect(sent[0]?.eventRows).toBe(0);
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
      'WITH s',
      'WITH commit_mode',
    ]);
    expect(sent[0]?.eventRows).toBe(1);
    const view = await service.loadView(key);
    expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});
