/**
 * History search (`searchEvents`): query latency over one session of 100k events in each store
 * (target: p50 under 20 ms), and what the index costs on append (target: under 1.3x the append
 * without it, both stores holding the same events; the in-memory store indexes each event as
 * it is appended, so its first search only scores; SQLite's append indexes nothing, idle time
 * and the next search do, in batches of 256: its CPU line adds that later indexing to the
 * append). PostgreSQL also searches without a `sessionId`: the same number of events over
 * `CROSS_SESSIONS` sessions of another user.
 *
 * Events: bench/search-corpus.ts (seeded text over a 5,000-word vocabulary, 30 words, a quarter of them tool results of
 * ~1.5 KB); queries: three vocabulary words in natural-language form (PostgreSQL also: a common
 * word and an absent one, the query that ranks the most recent matches of the common word).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { PostgresSessionService } from '../src/sessions/postgres/index.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { checkpointIndexing, SQLITE_SEARCH_BATCH } from '../src/sessions/sqlite/search-backlog.js';
import {
  hasPendingSearchEvents,
  indexPendingSearchEvents,
} from '../src/sessions/sqlite/search-index.js';
import { searchCorpus } from './search-corpus.js';
import { seededRandom as random } from './seeded-random.js';

const EVENTS = Number(process.env.ORRERY_BENCH_SEARCH_EVENTS ?? 100_000);
const QUERIES = 200;
const APPENDS = 2_000;

const next = random(42);
const { vocabulary, word, event } = searchCorpus(next);

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!;
}

const threeWords = () => `Where did we see ${word()} and ${word()} with ${word()}?`;
/**
 * One of the 5 commonest words (each in ~30-50% of events) and a word no event holds: no event
 * has two of the words, so the second round ranks the most recent matches of the common word.
 */
const commonAndAbsent = () =>
  `Where did we see ${vocabulary[Math.floor(next() * 5)]} and ${word()}zz?`;

async function searchLatency(
  service: SessionService,
  key: { appName: string; userId: string; sessionId?: string },
  queryText: () => string = threeWords,
) {
  const first = performance.now();
  await service.searchEvents!({ ...key, query: `what about ${word()}?` });
  const firstMs = performance.now() - first;
  const times: number[] = [];
  for (let index = 0; index < QUERIES; index++) {
    const query = queryText();
    const start = performance.now();
    await service.searchEvents!({ ...key, query, limit: 5 });
    times.push(performance.now() - start);
  }
  return { firstMs, p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

async function appendMs(service: SessionService, sessionId: string): Promise<number> {
  const key = { appName: 'bench', userId: 'u', sessionId };
  await service.createSession(key);
  const start = performance.now();
  for (let index = 0; index < APPENDS; index++)
    await service.appendEvent({ ...key, event: event(index) });
  return (performance.now() - start) / APPENDS;
}

/** CPU ms (user + system) of the process while `work` runs. */
async function cpuMs(work: () => Promise<void> | void): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

interface SqliteAppends {
  wallMs: number;
  cpuMs: number;
  /** CPU ms of indexing the appended events afterwards, as idle time does (search-backlog.ts). */
  laterCpuMs: number;
}

/**
 * SQLite appends with and without the index, `APPENDS` each, in alternating rounds of 250 (the
 * machine's load changes between rounds, not between the two). Each round on the indexed
 * store is followed by indexing what it appended, in the idle time's batches, measured apart:
 * an append indexes nothing (search-index.ts), the work comes later.
 */
async function sqliteAppends(
  indexed: SqliteSessionService,
  plain: SqliteSessionService,
): Promise<{ indexed: SqliteAppends; plain: SqliteAppends }> {
  const totals = {
    indexed: { wallMs: 0, cpuMs: 0, laterCpuMs: 0 },
    plain: { wallMs: 0, cpuMs: 0, laterCpuMs: 0 },
  };
  const database = await indexed.getDatabase();
  const indexBatch = database.transaction(() =>
    indexPendingSearchEvents(database, { limit: SQLITE_SEARCH_BATCH }),
  );
  const round = 250;
  for (let done = 0; done < APPENDS; done += round) {
    for (const [name, service] of [
      ['indexed', indexed],
      ['plain', plain],
    ] as const) {
      const key = { appName: 'bench', userId: 'u', sessionId: `appends-${done}` };
      await service.createSession(key);
      const total = totals[name];
      const start = performance.now();
      total.cpuMs += await cpuMs(async () => {
        for (let index = done; index < done + round; index++)
          await service.appendEvent({ ...key, event: event(index) });
      });
      total.wallMs += performance.now() - start;
      if (name === 'indexed') {
        total.laterCpuMs += await cpuMs(() => {
          while (hasPendingSearchEvents(database)) indexBatch.immediate();
          // As the idle indexing ends (search-backlog.ts).
          checkpointIndexing(database);
        });
      }
    }
  }
  const perAppend = (total: SqliteAppends) => ({
    wallMs: total.wallMs / APPENDS,
    cpuMs: total.cpuMs / APPENDS,
    laterCpuMs: total.laterCpuMs / APPENDS,
  });
  return { indexed: perAppend(totals.indexed), plain: perAppend(totals.plain) };
}

async function populate(service: SessionService, sessionId: string) {
  const key = { appName: 'bench', userId: 'u', sessionId };
  const start = performance.now();
  await service.importSession!({
    ...key,
    events: Array.from({ length: EVENTS }, (_, index) => event(index)),
  });
  return { key, seconds: (performance.now() - start) / 1000 };
}

const CROSS_SESSIONS = 20;

/** `EVENTS` events over `CROSS_SESSIONS` sessions of user `many`, searched without a session. */
async function populateSessions(service: SessionService) {
  const perSession = Math.ceil(EVENTS / CROSS_SESSIONS);
  const start = performance.now();
  for (let session = 0; session < CROSS_SESSIONS; session++) {
    const count = Math.min(perSession, EVENTS - session * perSession);
    await service.importSession!({
      appName: 'bench',
      userId: 'many',
      sessionId: `s${session}`,
      events: Array.from({ length: count }, (_, index) => event(session * perSession + index)),
    });
  }
  return { key: { appName: 'bench', userId: 'many' }, seconds: (performance.now() - start) / 1000 };
}

const LISTED_SESSIONS = 1_000;
const LIST_CALLS = 100;

/** `listAllSessions` over `LISTED_SESSIONS` sessions of 10 users: every app, and 2 users. */
async function listAllLatency(service: SessionService) {
  const appName = 'bench-list';
  for (let index = 0; index < LISTED_SESSIONS; index++) {
    await service.createSession({ appName, userId: `user-${index % 10}`, sessionId: `s${index}` });
  }
  const measure = async (
    options: Parameters<NonNullable<SessionService['listAllSessions']>>[0],
  ) => {
    const times: number[] = [];
    for (let index = 0; index < LIST_CALLS; index++) {
      const start = performance.now();
      await service.listAllSessions!(options);
      times.push(performance.now() - start);
    }
    return `${percentile(times, 0.5).toFixed(2)} | ${percentile(times, 0.95).toFixed(2)}`;
  };
  const everything = await measure({ limit: 50 });
  const someUsers = await measure({ appName, userIds: ['user-1', 'user-2'], limit: 50 });
  return `${everything} | ${someUsers}`;
}

const listRows: string[] = [];
let sqliteCpu = '';

function line(
  store: string,
  latency: Awaited<ReturnType<typeof searchLatency>>,
  withIndex: number,
  without: number,
  load: number,
) {
  const ratio = without > 0 ? `${(withIndex / without).toFixed(2)}x` : 'n/a';
  console.log(
    `| ${store} | ${latency.p50.toFixed(2)} | ${latency.p95.toFixed(2)} | ${latency.firstMs.toFixed(0)} | ${withIndex > 0 ? withIndex.toFixed(3) : 'n/a'} | ${without > 0 ? without.toFixed(3) : 'n/a'} | ${ratio} | ${load.toFixed(1)} |`,
  );
}

function printListRows(): void {
  if (sqliteCpu) console.log(`\n${sqliteCpu}`);
  console.log(
    `\nlistAllSessions: ${LISTED_SESSIONS.toLocaleString('en')} sessions of 10 users next to the search data, ${LIST_CALLS} calls, limit 50\n`,
  );
  console.log('| store | every app p50 ms | p95 ms | one app, 2 users p50 ms | p95 ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of listRows) console.log(row);
}

export async function run(options: { postgresUrl?: string }): Promise<void> {
  console.log(
    `${EVENTS.toLocaleString('en')} events in one session (PostgreSQL also over ${CROSS_SESSIONS} sessions, searched without a sessionId), ${QUERIES} queries, ${APPENDS} appends each\n`,
  );
  console.log(
    '| store | search p50 ms | p95 ms | first search ms | append ms (index) | append ms (no index) | ratio | load s |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');

  const memory = new InMemorySessionService();
  const memoryLoad = await populate(memory, 'big');
  listRows.push(`| in-memory | ${await listAllLatency(memory)} |`);
  line(
    'in-memory (BM25, indexed on append)',
    await searchLatency(memory, memoryLoad.key),
    await appendMs(memory, 'appends'),
    0,
    memoryLoad.seconds,
  );

  const folder = mkdtempSync(join(tmpdir(), 'orrery-search-bench-'));
  try {
    const sqlite = new SqliteSessionService({ path: join(folder, 'search.db') });
    const sqliteLoad = await populate(sqlite, 'big');
    const latency = await searchLatency(sqlite, sqliteLoad.key);
    const plain = new SqliteSessionService({ path: join(folder, 'plain.db') });
    const database = await plain.getDatabase();
    for (const trigger of ['delete', 'update_before', 'update_after']) {
      database.exec(`DROP TRIGGER events_search_${trigger}`);
    }
    // The same events, so both appends write to tables of the same size.
    await populate(plain, 'big');
    const appends = await sqliteAppends(sqlite, plain);
    // Closed now: its idle indexing of the appended events would run in the measures below.
    await plain.close();
    line(
      'SQLite (FTS5)',
      latency,
      appends.indexed.wallMs,
      appends.plain.wallMs,
      sqliteLoad.seconds,
    );
    const { indexed, plain: without } = appends;
    sqliteCpu = `SQLite append CPU ms (index / no index): ${indexed.cpuMs.toFixed(3)} / ${without.cpuMs.toFixed(3)} (${(indexed.cpuMs / without.cpuMs).toFixed(2)}x); indexing them later ${indexed.laterCpuMs.toFixed(3)} an event, append + indexing ${(indexed.cpuMs + indexed.laterCpuMs).toFixed(3)} (${((indexed.cpuMs + indexed.laterCpuMs) / without.cpuMs).toFixed(2)}x)`;
    listRows.push(`| SQLite | ${await listAllLatency(sqlite)} |`);
    await sqlite.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }

  if (!options.postgresUrl) {
    console.log('\nPostgreSQL skipped: set ORRERY_TEST_PG_URL');
    printListRows();
    return;
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: options.postgresUrl, max: 4 });
  const schemas = [`bench_search_${process.pid}`, `bench_plain_${process.pid}`];
  try {
    const postgres = new PostgresSessionService({
      pool,
      schema: schemas[0],
      queryTimeoutMs: 600_000,
    });
    const postgresLoad = await populate(postgres, 'big');
    const sessionsLoad = await populateSessions(postgres);
    await pool.query(`ANALYZE "${schemas[0]}".orrery_events`);
    const latency = await searchLatency(postgres, postgresLoad.key);
    const acrossLatency = await searchLatency(postgres, sessionsLoad.key);
    const oneOfManyLatency = await searchLatency(postgres, {
      ...sessionsLoad.key,
      sessionId: 's3',
    });
    const commonLatency = await searchLatency(postgres, postgresLoad.key, commonAndAbsent);
    const commonAcrossLatency = await searchLatency(postgres, sessionsLoad.key, commonAndAbsent);
    const withIndex = await appendMs(postgres, 'appends');
    const plain = new PostgresSessionService({ pool, schema: schemas[1] });
    await plain.migrate();
    // The store fills the column (schema version 7); without its indexes nothing reads it.
    await pool.query(
      `DROP INDEX "${schemas[1]}".orrery_events_search_scoped, "${schemas[1]}".orrery_events_user_seq`,
    );
    line(
      'PostgreSQL (tsvector, GIN)',
      latency,
      withIndex,
      await appendMs(plain, 'appends'),
      postgresLoad.seconds,
    );
    line(
      `PostgreSQL, ${CROSS_SESSIONS} sessions, no sessionId`,
      acrossLatency,
      0,
      0,
      sessionsLoad.seconds,
    );
    line(
      `PostgreSQL, one of the ${CROSS_SESSIONS} sessions (sessionId given)`,
      oneOfManyLatency,
      0,
      0,
      sessionsLoad.seconds,
    );
    line('PostgreSQL, common + absent word', commonLatency, 0, 0, postgresLoad.seconds);
    line(
      `PostgreSQL, ${CROSS_SESSIONS} sessions, no sessionId, common + absent word`,
      commonAcrossLatency,
      0,
      0,
      sessionsLoad.seconds,
    );
    listRows.push(`| PostgreSQL | ${await listAllLatency(postgres)} |`);
    printListRows();
  } finally {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
