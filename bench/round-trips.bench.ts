/**
 * `npm run bench -- round-trips`: what one quiet `Runner.run` turn asks of its store, counted,
 * not timed (so the figure does not depend on the machine's load): PostgreSQL statements sent
 * (each a network round trip; `BEGIN`/`COMMIT` count; `prepared`: how many of them ran as
 * named prepared statements), and SQLite transactions. With the CPU
 * per request of `npm run bench -- serve`, these give the per-request cost model of
 * docs/performance.md: a replica's throughput is bounded by its own CPU per request, the
 * database's by its CPU per statement and the round trips a request waits for.
 * Needs `ORRERY_TEST_PG_URL` (or `ORRERY_BENCH_PG_URL`) for the PostgreSQL row.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { quoteIdentifier } from '../src/sessions/postgres/migrations.js';
import { PostgresSessionService } from '../src/sessions/postgres/postgres-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';
import type { BenchOptions } from './run.js';

const turns = 20;

function newRunner(service: SessionService): Runner {
  return new Runner({
    appName: 'bench',
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
}

async function turn(runner: Runner, sessionId: string): Promise<void> {
  for await (const _event of runner.run({ userId: 'user', sessionId, newMessage: 'next' })) {
    // drained
  }
}

/** Statements per turn, by their first word, counted on every pg client the pool hands out. */
async function postgresCounts(url: string): Promise<Map<string, number>> {
  const { default: pg } = await import('pg');
  const counts = new Map<string, number>();
  const original = pg.Client.prototype.query;
  let counting = false;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    if (counting) {
      const first = args[0] as string | { text?: string; name?: string };
      const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '?');
      const word = text.trim().split(/\s+/)[0]?.toUpperCase() ?? '?';
      counts.set(word, (counts.get(word) ?? 0) + 1);
      // A named prepared statement: the server skips parse and plan (counted beside, not added).
      if (typeof first !== 'string' && first?.name) {
        counts.set('prepared', (counts.get('prepared') ?? 0) + 1);
      }
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const schema = `orrery_bench_trips_${randomBytes(6).toString('hex')}`;
  const service = new PostgresSessionService({ connectionString: url, schema });
  try {
    await service.createSession({ appName: 'bench', userId: 'user', sessionId: 'trips' });
    const runner = newRunner(service);
    for (let index = 0; index < 3; index++) await turn(runner, 'trips'); // warm: pool, migrations
    counting = true;
    for (let index = 0; index < turns; index++) await turn(runner, 'trips');
    counting = false;
    await runner.flush();
  } finally {
    pg.Client.prototype.query = original;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    await admin.end();
    await service.close();
  }
  return counts;
}

/** SQLite transactions per turn (reads and writes), counted on the database's `transaction`. */
async function sqliteCounts(): Promise<Map<string, number>> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-trips-'));
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(join(directory, 'trips.db'));
  const counts = new Map<string, number>();
  let counting = false;
  const original = database.transaction.bind(database);
  database.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const wrapped = original(fn);
    const counted =
      (mode: 'deferred' | 'immediate' | 'default') =>
      (...args: unknown[]) => {
        if (counting) counts.set(`${mode} tx`, (counts.get(`${mode} tx`) ?? 0) + 1);
        return (mode === 'default' ? wrapped : wrapped[mode])(...args);
      };
    return Object.assign(counted('default'), {
      deferred: counted('deferred'),
      immediate: counted('immediate'),
      exclusive: wrapped.exclusive,
    });
  }) as unknown as typeof database.transaction;
  // Statements executed, by their first word (a lease step is a statement outside these).
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    const statement = prepare(source);
    const word = `${source.trim().split(/\s+/)[0]?.toUpperCase()} stmt`;
    for (const method of ['run', 'get', 'all', 'iterate'] as const) {
      const call = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      Object.defineProperty(statement, method, {
        value: (...args: unknown[]) => {
          if (counting) counts.set(word, (counts.get(word) ?? 0) + 1);
          return call(...args);
        },
      });
    }
    return statement;
  }) as typeof database.prepare;
  const service = new SqliteSessionService({ database });
  try {
    await service.createSession({ appName: 'bench', userId: 'user', sessionId: 'trips' });
    const runner = newRunner(service);
    for (let index = 0; index < 3; index++) await turn(runner, 'trips');
    counting = true;
    for (let index = 0; index < turns; index++) await turn(runner, 'trips');
    counting = false;
  } finally {
    await service.close();
    database.close();
    rmSync(directory, { recursive: true, force: true });
  }
  return counts;
}

function line(store: string, counts: Map<string, number>): string {
  // Transactions are counted beside the statements they hold, not added to them.
  const total = [...counts]
    .filter(([word]) => !word.endsWith(' tx') && word !== 'prepared')
    .reduce((sum, [, count]) => sum + count, 0);
  const detail = [...counts]
    .sort((left, right) => right[1] - left[1])
    .map(([word, count]) => `${word} ${(count / turns).toFixed(2)}`)
    .join(', ');
  return `| ${store} | ${(total / turns).toFixed(2)} | ${detail} |`;
}

export async function run(options: BenchOptions = {}): Promise<void> {
  const rows = [line('SQLite (transactions; statements)', await sqliteCounts())];
  if (options.postgresUrl) {
    rows.push(
      line('PostgreSQL (statements = round trips)', await postgresCounts(options.postgresUrl)),
    );
  }
  console.log(
    `One quiet Runner turn (stub model, the triggers checked, no compaction), mean over ${turns} turns:\n`,
  );
  console.log('| store | statements per turn | by kind |');
  console.log('|---|---:|---|');
  for (const row of rows) console.log(row);
  if (!options.postgresUrl) console.log('\nPostgreSQL row skipped: set ORRERY_TEST_PG_URL.');
}
