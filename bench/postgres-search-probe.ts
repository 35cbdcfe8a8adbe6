/**
 * PostgreSQL search, probed on a kept schema (not a `*.bench.ts`: `npm run bench` skips it).
 * The data of bench/search.bench.ts (100k events in one session of user `u`, 100k over 20
 * sessions of user `many`) is imported once into `ORRERY_PROBE_SCHEMA` (default
 * `pgrank_search`) and kept, so runs of two trees compare on the same rows:
 *
 *   ORRERY_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/postgres-search-probe.ts populate
 *       (ORRERY_PROBE_ANALYZE_ONLY=1: ANALYZE without VACUUM after the load, as the search bench)
 *   ... npx tsx bench/postgres-search-probe.ts latency [src folder, default ../src]
 *   ... npx tsx bench/postgres-search-probe.ts explain [queries, default 3]   (ORRERY_PROBE_SRC: src folder)
 *   ... npx tsx bench/postgres-search-probe.ts hits [src folder]   (ranked seqs, for diffing trees)
 *   ... npx tsx bench/postgres-search-probe.ts cpu [queries, default 40]   (backend CPU a search; ORRERY_PROBE_SRC)
 *   ... npx tsx bench/postgres-search-probe.ts agree [queries, default 80]   (against exact BM25)
 *
 * `explain` logs each search statement of three-word queries with `EXPLAIN (ANALYZE, BUFFERS)`.
 * `cpu` reads the search connection's backend CPU (`/proc/<pid>/schedstat`, so the server must
 * run on this machine) around each search, asked twice in a row: the first ("cold") pays the
 * pages not yet in `shared_buffers`, the second ("warm") only the statement's work; CPU, unlike
 * latency, holds on a loaded machine. `agree` imports session `big`'s 100k events into the
 * in-memory store (exact BM25 over every match) and reports how often PostgreSQL's top hit and
 * top 5 are the same as its own, for the candidate caps' cost in ranking.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { SessionService } from '../src/sessions/session-service.js';
import { searchCorpus } from './search-corpus.js';
import { captureSearchStatements } from './search-statements.js';
import { seededRandom } from './seeded-random.js';

const url = process.env.ORRERY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = process.env.ORRERY_PROBE_SCHEMA ?? 'pgrank_search';
const EVENTS = 100_000;
const SESSIONS = 20;
const [mode = 'latency', argument] = process.argv.slice(2);

const next = seededRandom(42);
const { vocabulary, word, event } = searchCorpus(next);

const pool = new pg.Pool({ connectionString: url, max: 4 });

async function service(source: string): Promise<SessionService> {
  const module = (await import(
    pathToFileURL(resolve(source, 'sessions/postgres/index.ts')).href
  )) as typeof import('../src/sessions/postgres/index.js');
  return new module.PostgresSessionService({ pool, schema, queryTimeoutMs: 600_000 });
}

async function populate(): Promise<void> {
  const store = await service(resolve(import.meta.dirname, '../src'));
  await store.importSession!({
    appName: 'bench',
    userId: 'u',
    sessionId: 'big',
    events: Array.from({ length: EVENTS }, (_, index) => event(index)),
  });
  const perSession = EVENTS / SESSIONS;
  for (let session = 0; session < SESSIONS; session++) {
    await store.importSession!({
      appName: 'bench',
      userId: 'many',
      sessionId: `s${session}`,
      events: Array.from({ length: perSession }, (_, index) => event(session * perSession + index)),
    });
  }
  // `ORRERY_PROBE_ANALYZE_ONLY=1`: ANALYZE as the search bench does (no VACUUM: GIN's pending
  // list of recent entries stays until autovacuum merges it).
  const vacuum = process.env.ORRERY_PROBE_ANALYZE_ONLY ? '' : 'VACUUM';
  await pool.query(`${vacuum} ANALYZE "${schema}".orrery_events`);
}

const threeWords = () => `Where did we see ${word()} and ${word()} with ${word()}?`;
const commonAndAbsent = () =>
  `Where did we see ${vocabulary[Math.floor(next() * 5)]} and ${word()}zz?`;

const cases = [
  { name: 'one session', key: { userId: 'u', sessionId: 'big' }, query: threeWords },
  { name: '20 sessions, no sessionId', key: { userId: 'many' }, query: threeWords },
  { name: 'one of the 20 sessions', key: { userId: 'many', sessionId: 's3' }, query: threeWords },
  { name: 'common + absent word', key: { userId: 'u', sessionId: 'big' }, query: commonAndAbsent },
];

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

async function latency(source: string, queries = 200): Promise<void> {
  const store = await service(source);
  for (const { name, key, query } of cases) {
    await store.searchEvents!({ appName: 'bench', ...key, query: 'warm up' });
    const times: number[] = [];
    const texts: string[] = [];
    for (let index = 0; index < queries; index++) {
      const text = query();
      texts.push(text);
      const start = performance.now();
      await store.searchEvents!({ appName: 'bench', ...key, query: text, limit: 5 });
      times.push(performance.now() - start);
    }
    console.log(
      `| ${source} | ${name} | ${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.95).toFixed(2)} |`,
    );
    if (process.env.ORRERY_PROBE_SLOWEST) {
      const slowest = texts.map((text, index) => ({ text, ms: times[index]! }));
      slowest.sort((a, b) => b.ms - a.ms);
      for (const { text, ms } of slowest.slice(0, 5))
        console.log(`    ${ms.toFixed(1)} ms: ${text}`);
    }
  }
}

async function hits(source: string): Promise<void> {
  const store = await service(source);
  for (const { name, key, query } of cases) {
    for (let index = 0; index < 40; index++) {
      const text = query();
      const found = await store.searchEvents!({ appName: 'bench', ...key, query: text, limit: 5 });
      console.log(
        `${name} | ${text} | ${found.map((hit) => `${hit.sessionId}:${hit.seq}:${hit.score.toFixed(9)}`).join(' ')}`,
      );
    }
  }
}

async function explain(count: number): Promise<void> {
  const captured = captureSearchStatements();
  const store = await service(
    resolve(process.env.ORRERY_PROBE_SRC ?? resolve(import.meta.dirname, '../src')),
  );
  for (const { name, key, query } of cases) {
    for (let index = 0; index < count; index++) {
      captured.length = 0;
      const text = query();
      await store.searchEvents!({ appName: 'bench', ...key, query: text, limit: 5 });
      for (const statement of captured) {
        const plan = await pool.query(
          `EXPLAIN (ANALYZE, BUFFERS, TIMING) ${statement.text}`,
          statement.values,
        );
        console.log(`\n### ${name}: ${text}\n${JSON.stringify(statement.values.slice(13))}`);
        console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
      }
    }
  }
}

async function backendCpu(count: number): Promise<void> {
  const store = await service(
    resolve(process.env.ORRERY_PROBE_SRC ?? resolve(import.meta.dirname, '../src')),
  );
  // One connection: every statement of a search runs on the backend whose CPU is read.
  const client = await pool.connect();
  const { pid } = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
  client.release();
  const cpuMs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  for (const { name, key, query } of cases) {
    await store.searchEvents!({ appName: 'bench', ...key, query: 'warm up' });
    const cold: number[] = [];
    const warm: number[] = [];
    for (let index = 0; index < count; index++) {
      const text = query();
      for (const list of [cold, warm]) {
        const before = cpuMs();
        await store.searchEvents!({ appName: 'bench', ...key, query: text, limit: 5 });
        list.push(cpuMs() - before);
      }
    }
    console.log(
      `| ${name} | ${percentile(cold, 0.5).toFixed(2)} | ${percentile(warm, 0.5).toFixed(2)} |`,
    );
  }
}

async function agree(count: number): Promise<void> {
  const { InMemorySessionService } = await import('../src/sessions/in-memory-session-service.js');
  // The same draws as `populate`'s first session: the same 100k events.
  const draws = searchCorpus(seededRandom(42));
  const exact = new InMemorySessionService();
  const key = { appName: 'bench', userId: 'u', sessionId: 'big' };
  await exact.importSession!({
    ...key,
    events: Array.from({ length: EVENTS }, (_, index) => draws.event(index)),
  });
  const store = await service(resolve(import.meta.dirname, '../src'));
  const asked = [
    threeWords,
    () => `${word()} ${word()}`,
    () => `what about ${word()}`,
    () => `${vocabulary[Math.floor(next() * 20)]} ${word()} ${word()} ${word()}`,
  ];
  let sameFirst = 0;
  let shared = 0;
  for (let index = 0; index < count; index++) {
    const text = asked[index % asked.length]!();
    const expected = await exact.searchEvents!({ ...key, query: text, limit: 5 });
    const found = await store.searchEvents!({ ...key, query: text, limit: 5 });
    const seqs = new Set(expected.map((hit) => hit.seq));
    if (found[0]?.seq === expected[0]?.seq) sameFirst++;
    shared += found.filter((hit) => seqs.has(hit.seq)).length / Math.max(1, seqs.size);
  }
  console.log(
    `top hit as exact BM25's: ${sameFirst} of ${count}; top 5 shared: ${(shared / count).toFixed(3)}`,
  );
}

try {
  if (mode === 'populate') await populate();
  else if (mode === 'cpu') await backendCpu(Number(argument ?? 40));
  else if (mode === 'agree') await agree(Number(argument ?? 80));
  else if (mode === 'explain') await explain(Number(argument ?? 3));
  else if (mode === 'hits') await hits(resolve(argument ?? resolve(import.meta.dirname, '../src')));
  else await latency(resolve(argument ?? resolve(import.meta.dirname, '../src')));
} finally {
  await pool.end();
}
