/**
 * Two `orrery serve` processes on one PostgreSQL database serve one session at once: the
 * session lease serializes the runs across them, so every request is answered, every event is
 * stored once with gapless seq, each invocation's events are contiguous, and each range of
 * events is compacted once. Each run gets its own database (the CLI's store is the `public`
 * schema), dropped afterwards. Needs `npm run build` and ORRERY_TEST_PG_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Event } from '../../src/index.js';
import { PostgresSessionService } from '../../src/sessions/postgres/index.js';
import { describePostgres } from '../../src/sessions/postgres/test-helpers/pg-test-env.js';
import { type FakeOpenAi, startFakeOpenAi } from './fake-openai.js';
import { type ServeProcess, startServe } from './serve-process.js';

const runsPerReplica = 8;

describePostgres('orrery serve: two replicas on one PostgreSQL database', (url) => {
  const database = `orrery_serve_${randomBytes(5).toString('hex')}`;
  const databaseUrl = (() => {
    const parsed = new URL(url);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  let admin: pg.Client;
  let fake: FakeOpenAi;
  const replicas: ServeProcess[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    for (const replica of replicas)
      if (replica.child.exitCode === null) replica.child.kill('SIGTERM');
    await Promise.all(replicas.map((replica) => replica.exited));
    await fake?.close();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  it(`${runsPerReplica} runs through each replica on one session, concurrently: all answered, all stored, seq gapless, one compaction per range`, async () => {
    const env = {
      ORRERY_MODEL: 'openai-compatible:fake',
      ORRERY_OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      ORRERY_COMPACTION_TOKEN_THRESHOLD: '300',
      ORRERY_COMPACTION_RETENTION_EVENTS: '2',
    };
    for (let index = 0; index < 2; index++) {
      replicas.push(
        await startServe({
          args: ['--db', databaseUrl, '--log-level', 'warn'],
          env,
          cwd: mkdtempSync(join(tmpdir(), 'orrery-replica-')),
        }),
      );
    }
    const [first, second] = replicas as [ServeProcess, ServeProcess];
    const key = { appName: 'orrery', userId: 'u', sessionId: 'shared' };
    expect(
      (await fetch(`${first.url}/apps/orrery/users/u/sessions/shared`, { method: 'POST' })).status,
    ).toBe(200);
    // The session one replica created is the other's too.
    expect((await fetch(`${second.url}/apps/orrery/users/u/sessions/shared`)).status).toBe(200);

    const run = async (replica: ServeProcess, text: string) => {
      const response = await fetch(`${replica.url}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...key, newMessage: { role: 'user', parts: [{ text }] } }),
      });
      expect(response.status, text).toBe(200);
      return (await response.json()) as Array<{ id: string; invocationId: string }>;
    };
    const answers = await Promise.all(
      Array.from({ length: runsPerReplica * 2 }, (_, index) =>
        run(index % 2 === 0 ? first : second, `message ${index}`),
      ),
    );
    // Background compactions finish before the replicas stop.
    for (const replica of replicas) replica.child.kill('SIGTERM');
    expect(
      (await Promise.all(replicas.map((replica) => replica.exited))).map((exit) => exit.code),
    ).toEqual([0, 0]);

    const service = new PostgresSessionService({ connectionString: databaseUrl });
    let events: Event[] = [];
    try {
      let afterSeq: number | undefined;
      do {
        const page = await service.listEvents({ ...key, afterSeq, limit: 1000 });
        events = events.concat(page.events);
        afterSeq = page.nextCursor;
      } while (afterSeq !== undefined);
    } finally {
      await service.close();
    }
    // Seq gapless from 1.
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    // Every answered event is stored, once.
    const storedIds = events.map((event) => event.id);
    expect(new Set(storedIds).size).toBe(storedIds.length);
    for (const answer of answers) {
      expect(answer.map((event) => event.id).every((id) => storedIds.includes(id))).toBe(true);
    }
    const conversation = events.filter((event) => !event.actions.compaction);
    expect(conversation).toHaveLength(runsPerReplica * 2 * 2);
    // Each invocation's events are contiguous: a user message, then its answer.
    for (let index = 0; index < conversation.length; index += 2) {
      const [user, answer] = [conversation[index]!, conversation[index + 1]!];
      expect([user.author, answer.author]).toEqual(['user', 'assistant']);
      expect(answer.invocationId).toBe(user.invocationId);
      expect(answer.content?.parts[0]?.text).toBe(`echo: ${user.content?.parts[0]?.text}`);
    }
    // No call is left without its response.
    const calls = events.flatMap(
      (event) => event.content?.parts.filter((part) => part.functionCall) ?? [],
    );
    const responses = events.flatMap(
      (event) => event.content?.parts.filter((part) => part.functionResponse) ?? [],
    );
    expect(calls.length).toBe(responses.length);
    // Compacted, and each range once: the checkpoints move strictly forward.
    const compactions = events.flatMap((event) =>
      event.actions.compaction ? [event.actions.compaction] : [],
    );
    expect(compactions.length).toBeGreaterThan(0);
    const ends = compactions.map((compaction) => compaction.endSeq);
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    expect(new Set(ends).size).toBe(ends.length);
  }, 180_000);
});
