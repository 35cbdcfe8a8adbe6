/**
 * What one quiet Runner turn asks of the SQLite store, counted (docs/performance.md, round
 * trips): the lease taken, the session and its view read in one statement, each append one
 * UPDATE ... RETURNING and one INSERT, the lease dropped. The turn's own appends stay in the
 * store's view cache, so the next turn reads no event row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from './runner.js';

let folder: string;
let database: Database.Database;
let service: SqliteSessionService;
/** Statements run, by first word, and transactions begun, by mode, while `counting`. */
let counts: Map<string, number>;
let counting = false;

function count(name: string): void {
  if (counting) counts.set(name, (counts.get(name) ?? 0) + 1);
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-turn-statements-'));
  database = new Database(join(folder, 'turn.db'));
  counts = new Map();
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    const statement = prepare(source);
    const word = source.trim().split(/\s+/)[0]!.toUpperCase();
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const call = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: (...args: unknown[]) => {
          count(word);
          return call(...args);
        },
      });
    }
    return statement;
  }) as typeof database.prepare;
  const transaction = database.transaction.bind(database);
  database.transaction = ((work: (...args: unknown[]) => unknown) => {
    const wrapped = transaction(work);
    const counted =
      (mode: 'deferred' | 'immediate') =>
      (...args: unknown[]) => {
        count(`${mode} transaction`);
        return wrapped[mode](...args);
      };
    return Object.assign((...args: unknown[]) => wrapped(...args), {
      deferred: counted('deferred'),
      immediate: counted('immediate'),
      exclusive: wrapped.exclusive,
    });
  }) as unknown as typeof database.transaction;
  service = new SqliteSessionService({ database });
});

afterEach(async () => {
  await service.close();
  database.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A Runner with a stub model on `store`, and one turn of it (its stored events). */
function quietTurns(store: SqliteSessionService): () => Promise<Event[]> {
  const runner = new Runner({
    appName: 'app',
    agent: new LlmAgent({
      name: 'agent',
      model: {
        modelId: 'stub',
        contextWindowTokens: 1_000_000,
        generate: async () =>
          textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
      },
    }),
    sessionService: store,
    compaction: {
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      summarizer: new DigestSummarizer(),
    },
    logger: false,
  });
  return async () => {
    const events = [];
    for await (const event of runner.run({
      userId: 'user',
      sessionId: 'quiet',
      newMessage: 'next',
    })) {
      events.push(event);
    }
    return events;
  };
}

it('a quiet turn runs 7 statements: lease, one view read, two appends of two statements, release', async () => {
  await service.createSession({ appName: 'app', userId: 'user', sessionId: 'quiet' });
  const turn = quietTurns(service);
  await turn(); // the first read of the session fills the view cache
  counting = true;
  const events = await turn();
  counting = false;
  expect(events.map((event) => event.author)).toEqual(['user', 'agent']);
  expect(Object.fromEntries(counts)).toEqual({
    INSERT: 3, // the lease row, the user's message, the answer
    SELECT: 1, // the session row and shared state; the view from the cache
    UPDATE: 2, // each append's seq
    DELETE: 1, // the lease row
    'deferred transaction': 1,
    'immediate transaction': 2,
  });
  const session = await service.getSession({
    appName: 'app',
    userId: 'user',
    sessionId: 'quiet',
    events: 'full',
  });
  expect(session?.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
});

it('with exclusive, a quiet turn writes no lease row: 5 statements', async () => {
  const exclusive = new SqliteSessionService({ database, exclusive: true });
  try {
    await exclusive.createSession({ appName: 'app', userId: 'user', sessionId: 'quiet' });
    const turn = quietTurns(exclusive);
    await turn();
    counting = true;
    const events = await turn();
    counting = false;
    expect(events.map((event) => event.author)).toEqual(['user', 'agent']);
    expect(Object.fromEntries(counts)).toEqual({
      INSERT: 2, // the user's message, the answer
      SELECT: 1,
      UPDATE: 2,
      'deferred transaction': 1,
      'immediate transaction': 2,
    });
  } finally {
    await exclusive.close();
  }
});
