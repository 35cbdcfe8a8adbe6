/**
 * What each store call of a quiet turn costs on PostgreSQL, one at a time: the lease taken with
 * the question appended and the view read, the answer appended, the release, each one statement.
 * One process, one pooled connection (so one backend runs every statement), calls in sequence:
 * the backend's CPU (/proc/<pid>/schedstat; the server must run on this machine) and this
 * process's CPU are read around each call, so each delta is that call alone.
 * `ORRERY_TEST_PG_URL=postgres://... node --import tsx bench/postgres-statement-cpu.ts [turns] [tree...]`
 * runs `turns` turns (default 2000, after 50 warm ones) per tree (default this one: the root of
 * an orrery checkout), each tree's store in its own fresh schema (dropped at the end), the trees
 * alternating in blocks of 100 turns, so a before and an after tree share the load, the backend
 * and the process. Prints per tree and call the backend and node CPU µs (the median of the blocks,
 * each its mean per call). Sequential calls wake the process per statement: node µs here are higher
 * than in a loaded server, where one wake-up serves several connections.
 * `ORRERY_BENCH_PG_ALTER` as in postgres-store-turns.ts, run on every tree's schema.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import type { PostgresSessionService as Service } from '../src/sessions/postgres/index.js';
import type { userTextEvent as UserTextEvent } from '../src/testing/event-builders.js';

const url = process.env.ORRERY_TEST_PG_URL;
if (!url) throw new Error('ORRERY_TEST_PG_URL is not set');
const turns = Number(process.argv[2] ?? 2000);
const trees = (process.argv.length > 3 ? process.argv.slice(3) : ['.']).map((tree) =>
  resolve(tree),
);
const pool = new pg.Pool({ connectionString: url, max: 1 });
const key = { appName: 'app', userId: 'user', sessionId: 'session' };
const names = ['takeAndAppend', 'appendAnswer', 'release'] as const;
type Name = (typeof names)[number];

interface Subject {
  tree: string;
  schema: string;
  service: Service;
  userTextEvent: typeof UserTextEvent;
  /** Per call: each block's per-call backend and node CPU in µs. */
  samples: Record<Name, { backend: number[]; node: number[] }>;
}

const subjects: Subject[] = [];
for (const [index, tree] of trees.entries()) {
  const { PostgresSessionService } = (await import(`${tree}/src/sessions/postgres/index.ts`)) as {
    PostgresSessionService: typeof Service;
  };
  const { userTextEvent } = (await import(`${tree}/src/testing/event-builders.ts`)) as {
    userTextEvent: typeof UserTextEvent;
  };
  const schema = `statement_cpu_${process.pid}_${index}`;
  const service = new PostgresSessionService({ pool, schema });
  await service.createSession(key);
  for (const text of (process.env.ORRERY_BENCH_PG_ALTER ?? '').split(';')) {
    if (text.trim()) await pool.query(text.replaceAll('{schema}', schema));
  }
  const samples = Object.fromEntries(
    names.map((name) => [name, { backend: [], node: [] }]),
  ) as unknown as Subject['samples'];
  subjects.push({ tree, schema, service, userTextEvent, samples });
}
const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
const pid = rows[0]?.pid;
// Read synchronously: an fs promise's threads would add to this process's CPU.
const backendNs = () => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

type Block = Record<Name, { backend: number; node: number }>;
const measured = async <T>(block: Block, name: Name, call: () => Promise<T>): Promise<T> => {
  const backendBefore = backendNs();
  const nodeBefore = process.cpuUsage();
  const result = await call();
  const node = process.cpuUsage(nodeBefore);
  block[name].backend += (backendNs() - backendBefore) / 1000;
  block[name].node += node.user + node.system;
  return result;
};

const turn = async (subject: Subject, block: Block) => {
  const { service, userTextEvent } = subject;
  const question = userTextEvent({ text: 'the next question' });
  let lease: Awaited<ReturnType<Service['acquireLease']>>;
  const takeAndAppend = service.acquireLeaseAndAppend?.bind(service);
  if (takeAndAppend) {
    ({ lease } = await measured(block, 'takeAndAppend', () =>
      takeAndAppend({ ...key, renew: false, event: question }),
    ));
  } else {
    ({ lease } = await measured(block, 'takeAndAppend', () =>
      service.acquireLeaseAndGetSession({ ...key, renew: false }),
    ));
    await service.appendEvent({ ...key, event: question });
  }
  const answer = { ...userTextEvent({ text: 'an answer' }), author: 'agent' };
  await measured(block, 'appendAnswer', () => service.appendEvent({ ...key, event: answer }));
  await measured(block, 'release', () => lease.release());
};

const emptyBlock = (): Block =>
  Object.fromEntries(names.map((name) => [name, { backend: 0, node: 0 }])) as Block;
for (const subject of subjects)
  for (let index = 0; index < 50; index++) await turn(subject, emptyBlock());
const perBlock = 100;
for (let done = 0; done < turns; done += perBlock) {
  for (const subject of subjects) {
    const block = emptyBlock();
    for (let index = 0; index < perBlock; index++) await turn(subject, block);
    for (const name of names) {
      subject.samples[name].backend.push(block[name].backend / perBlock);
      subject.samples[name].node.push(block[name].node / perBlock);
    }
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
for (const { tree, samples } of subjects) {
  let backendTotal = 0;
  let nodeTotal = 0;
  for (const name of names) {
    const backend = median(samples[name].backend);
    const node = median(samples[name].node);
    backendTotal += backend;
    nodeTotal += node;
    console.log(
      JSON.stringify({
        tree,
        call: name,
        backendUs: Math.round(backend),
        nodeUs: Math.round(node),
      }),
    );
  }
  console.log(
    JSON.stringify({
      tree,
      call: 'turn',
      backendUs: Math.round(backendTotal),
      nodeUs: Math.round(nodeTotal),
    }),
  );
}
if (process.env.ORRERY_BENCH_PLANS) {
  const plans = await pool.query(
    'SELECT generic_plans, custom_plans, left(statement, 60) AS statement FROM pg_prepared_statements',
  );
  for (const row of plans.rows) console.log(JSON.stringify(row));
}
for (const { service, schema } of subjects) {
  await service.close();
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
}
await pool.end();
