/**
 * A quiet turn's store calls on PostgreSQL (the lease taken with the view and, where the store
 * can, the question appended; the answer appended and, where the store can, the lease released
 * with it; else the release) for 16 sessions in parallel, and what they cost: this process's CPU and its pool's
 * backends' CPU (/proc/<pid>/schedstat, found by `application_name`; the server must run on
 * this machine) per turn, and the lease and session tables' inserts, updates (HOT among them)
 * and deletes.
 * `ORRERY_TEST_PG_URL=postgres://... node --import tsx bench/postgres-store-turns.ts [turns] [tree]`
 * runs `turns` rounds (default 200) after 10 warm ones, in a fresh schema it drops at the end.
 * `tree` (default this one) is the root of an orrery checkout whose store is measured, so a
 * before and an after tree run side by side with the same script. `ORRERY_BENCH_PG_ALTER`:
 * statements run on the schema first (`;`-separated, `{schema}` replaced), to measure what an
 * index costs (e.g. `DROP INDEX {schema}.orrery_sessions_recent`).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import type { PostgresSessionService as Service } from '../src/sessions/postgres/index.js';
import type { userTextEvent as UserTextEvent } from '../src/testing/event-builders.js';

const url = process.env.ORRERY_TEST_PG_URL;
if (!url) throw new Error('ORRERY_TEST_PG_URL is not set');
const rounds = Number(process.argv[2] ?? 200);
const tree = resolve(process.argv[3] ?? '.');
const { PostgresSessionService } = (await import(`${tree}/src/sessions/postgres/index.ts`)) as {
  PostgresSessionService: typeof Service;
};
const { userTextEvent } = (await import(`${tree}/src/testing/event-builders.ts`)) as {
  userTextEvent: typeof UserTextEvent;
};

const applicationName = `orrery-store-turns-${process.pid}`;
const schema = `store_turns_${process.pid}`;
const pool = new pg.Pool({ connectionString: url, max: 16, application_name: applicationName });
const service = new PostgresSessionService({ pool, schema });
const keys = Array.from({ length: 16 }, (_, index) => ({
  appName: 'app',
  userId: 'user',
  sessionId: `session-${index}`,
}));
for (const key of keys) await service.createSession(key);
const alter = process.env.ORRERY_BENCH_PG_ALTER ?? '';
for (const text of alter.split(';').filter((part) => part.trim())) {
  await pool.query(text.replaceAll('{schema}', schema));
}

// A tree whose store appends the question with the take (`acquireLeaseAndAppend`) does, as
// the Runner does: one statement less.
const turn = async (key: (typeof keys)[number]) => {
  const question = userTextEvent({ text: 'the next question' });
  let lease: Awaited<ReturnType<typeof service.acquireLease>>;
  if (service.acquireLeaseAndAppend) {
    ({ lease } = await service.acquireLeaseAndAppend({ ...key, renew: false, event: question }));
  } else {
    ({ lease } = await service.acquireLeaseAndGetSession({ ...key, renew: false }));
    await service.appendEvent({ ...key, event: question });
  }
  const answer = { ...userTextEvent({ text: 'an answer' }), author: 'agent' };
  // A tree whose store releases the lease with the answer (`appendEventAndReleaseLease`) does,
  // as the Runner does on a quiet turn: one statement less again.
  if (service.appendEventAndReleaseLease) {
    await service.appendEventAndReleaseLease({ ...key, event: answer, lease });
    return;
  }
  await service.appendEvent({ ...key, event: answer });
  await lease.release();
};

const admin = new pg.Client({ connectionString: url });
await admin.connect();
const backendCpuMs = async () => {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  );
  let total = 0;
  for (const { pid } of rows) {
    total += Number((await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ')[0]) / 1e6;
  }
  return total;
};

for (let round = 0; round < 10; round++) await Promise.all(keys.map(turn));
const backendBefore = await backendCpuMs();
const cpuBefore = process.cpuUsage();
for (let round = 0; round < rounds; round++) await Promise.all(keys.map(turn));
const cpu = process.cpuUsage(cpuBefore);
const backend = (await backendCpuMs()) - backendBefore;
const turns = rounds * keys.length;
// The statistics reach pg_stat_user_tables within a second of each backend's last commit.
await new Promise((done) => setTimeout(done, 1500));
const { rows: tables } = await admin.query(
  `SELECT relname AS table, n_tup_ins AS inserted, n_tup_upd AS updated,
      n_tup_hot_upd AS hot_updated, n_tup_del AS deleted
    FROM pg_stat_user_tables
    WHERE schemaname = $1 AND relname IN ('orrery_session_leases', 'orrery_sessions')
    ORDER BY relname`,
  [schema],
);
console.log(
  JSON.stringify({
    tree,
    turns,
    orreryCpuMsPerTurn: Number(((cpu.user + cpu.system) / 1000 / turns).toFixed(3)),
    backendCpuMsPerTurn: Number((backend / turns).toFixed(3)),
  }),
);
for (const table of tables) console.log(JSON.stringify(table));
await service.close();
await pool.end();
await admin.query(`DROP SCHEMA ${schema} CASCADE`);
await admin.end();
