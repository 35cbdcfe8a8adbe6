/**
 * `npm run bench -- serve`: `POST /run` under load on loopback, orrery beside the floor and ADK
 * in one window. Each server runs in a process of its own (`serve-target.ts`), the load
 * generator (autocannon) in this one; each connection drives its own session. Targets: orrery
 * on SQLite (also with every commit flushed, `orrery-sqlite-full`; and on PostgreSQL with a
 * URL, beside `floor-postgres`, the floor's work in one statement a request), the floor (bare
 * `node:http` + better-sqlite3: parse, read the last 50 events, write the user event and the
 * answer in one transaction), ADK for TypeScript's API server on its in-memory store and on
 * SQLite. For each connection count the targets take turns, `ORRERY_BENCH_SERVE_ROUNDS` rounds
 * (default 3) of `ORRERY_BENCH_SERVE_SECONDS` (default 3 s) each, so every ratio compares cells
 * measured seconds apart under the same machine load; a ratio is the median over the rounds of the
 * per-round ratio. CPU ms per request is the server process's user + system CPU over the cell
 * divided by its answered requests: unlike requests/s it does not depend on how many cores the
 * server got on a shared machine. After the cells, every orrery session is read back: each
 * answered run's events must be stored (`lost` must be 0).
 * `ORRERY_BENCH_SERVE_CONNECTIONS=16` picks the connection counts (default `1,16,64`),
 * `ORRERY_BENCH_SERVE_TARGETS=orrery-sqlite,floor` the targets, `ORRERY_BENCH_SERVE_CPU_PROF=prof`
 * a folder for a CPU profile of each orrery server (`node bench/profile-top.mjs` reads it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { quoteIdentifier } from '../src/sessions/postgres/migrations.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { backendCpuMeter } from './postgres-backend-cpu.js';
import type { BenchOptions } from './run.js';
import {
  BENCH_APP,
  BENCH_TOKEN,
  benchApplicationName,
  orreryDatabaseFile,
  type ServeTargetKind,
} from './serve-target.js';
import { median } from './workload.js';

/** The parts of autocannon's result this bench reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const folder = dirname(fileURLToPath(import.meta.url));
const connectionCounts = (process.env.ORRERY_BENCH_SERVE_CONNECTIONS ?? '1,16,64')
  .split(',')
  .map(Number);
const seconds = Number(process.env.ORRERY_BENCH_SERVE_SECONDS ?? 3);
const rounds = Number(process.env.ORRERY_BENCH_SERVE_ROUNDS ?? 3);

interface Target {
  kind: ServeTargetKind;
  url: string;
  /** The server's process id (its PostgreSQL connections are named after it). */
  pid: number;
  /** The PostgreSQL server a PostgreSQL target uses. */
  databaseUrl?: string;
  child: ChildProcess;
  lines: Interface;
  nextLine(): Promise<string>;
}

interface Cell {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  answered: number;
  failed: number;
  cpuPerRequest: number;
  /** The PostgreSQL backends' CPU per answered request (PostgreSQL targets only). */
  databaseCpuPerRequest?: number;
}

/** Round -1 is the warm-up (JIT, caches, connections): one cell per target, not counted. */
function sessionIdsFor(connections: number, round: number): string[] {
  const name = round < 0 ? 'warm' : `r${round}`;
  return Array.from({ length: connections }, (_, index) => `c${connections}-${name}-${index}`);
}

async function startTarget(
  kind: ServeTargetKind,
  directory: string,
  env: NodeJS.ProcessEnv,
): Promise<Target> {
  const ids = connectionCounts.flatMap((connections) =>
    Array.from({ length: rounds + 1 }, (_, round) => sessionIdsFor(connections, round - 1)).flat(),
  );
  // `ORRERY_BENCH_SERVE_CPU_PROF=<folder>`: orrery's servers write a V8 CPU profile there.
  const profile = process.env.ORRERY_BENCH_SERVE_CPU_PROF;
  const profileArgs =
    profile && !kind.startsWith('adk') ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(
    process.execPath,
    [
      ...profileArgs,
      '--import',
      'tsx',
      join(folder, 'serve-target.ts'),
      kind,
      directory,
      ids.join(','),
    ],
    { env, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else queue.push(line);
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const line = queue.shift();
      if (line !== undefined) return resolve(line);
      const timer = setTimeout(() => reject(new Error(`${kind}: no answer within 120 s`)), 120_000);
      waiting.push((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
  const { url, pid } = JSON.parse(await nextLine()) as { url: string; pid: number };
  const databaseUrl = kind.endsWith('postgres') ? env.ORRERY_BENCH_PG_URL : undefined;
  return { kind, url, pid, databaseUrl, child, lines, nextLine };
}

async function cpuMs(target: Target): Promise<number> {
  target.child.stdin!.write('cpu\n');
  return (JSON.parse(await target.nextLine()) as { cpuMs: number }).cpuMs;
}

async function loadCell(
  target: Target,
  connections: number,
  round: number,
  duration = seconds,
): Promise<Cell> {
  const sessionIds = sessionIdsFor(connections, round);
  let next = 0;
  // A PostgreSQL target's backends are other processes: their CPU is read beside the server's.
  const meter =
    target.databaseUrl === undefined
      ? undefined
      : await backendCpuMeter({
          url: target.databaseUrl,
          applicationName: benchApplicationName(target.pid),
        });
  const before = await cpuMs(target);
  meter?.start();
  const result = await autocannon({
    url: `${target.url}/run`,
    method: 'POST',
    connections,
    duration,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
    setupClient: (client: { setBody(body: string): void }) => {
      client.setBody(
        JSON.stringify({
          appName: BENCH_APP,
          userId: 'user',
          sessionId: sessionIds[next++ % sessionIds.length],
          newMessage: { role: 'user', parts: [{ text: 'next' }] },
        }),
      );
    },
  });
  const used = (await cpuMs(target)) - before;
  const databaseUsed = meter ? (await meter.stop()) - meter.initialMs : undefined;
  const answered = result['2xx'];
  const cell: Cell = {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    answered,
    failed: result.non2xx + result.errors + result.timeouts,
    cpuPerRequest: answered > 0 ? used / answered : Number.NaN,
  };
  if (databaseUsed !== undefined) {
    cell.databaseCpuPerRequest = answered > 0 ? databaseUsed / answered : Number.NaN;
  }
  return cell;
}

async function stopTarget(target: Target): Promise<void> {
  const exited = new Promise((resolve) => target.child.once('exit', resolve));
  target.child.stdin!.end();
  await exited;
}

/** Every answered run left its user message and answer, with no gap in `seq`. */
async function lostRuns(service: SessionService, answered: Map<string, number>): Promise<number> {
  let lost = 0;
  for (const connections of connectionCounts) {
    let complete = 0;
    for (let round = 0; round < rounds; round++) {
      for (const sessionId of sessionIdsFor(connections, round)) {
        const page = await service.listEvents({
          appName: BENCH_APP,
          userId: 'user',
          sessionId,
          limit: 100_000,
        });
        page.events.forEach((event, index) => {
          if (event.seq !== index + 1)
            throw new Error(`${sessionId}: seq ${event.seq} at ${index + 1}`);
        });
        complete += page.events.filter((event) => event.author === 'agent').length;
      }
    }
    lost += Math.max(0, (answered.get(String(connections)) ?? 0) - complete);
  }
  return lost;
}

export async function run(options: BenchOptions = {}): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-serve-'));
  const schema = `orrery_bench_serve_${randomBytes(6).toString('hex')}`;
  const wanted = process.env.ORRERY_BENCH_SERVE_TARGETS?.split(',');
  const kinds = (
    [
      'orrery-sqlite',
      'orrery-sqlite-exclusive',
      'orrery-sqlite-full',
      'floor',
      'adk-memory',
      'adk-sqlite',
      'orrery-postgres',
      'floor-postgres',
    ] as ServeTargetKind[]
  )
    .filter((kind) => !kind.endsWith('postgres') || options.postgresUrl)
    .filter((kind) => !wanted || wanted.includes(kind));
  const env = {
    ...process.env,
    ORRERY_BENCH_PG_URL: options.postgresUrl,
    ORRERY_BENCH_PG_SCHEMA: schema,
  };
  const cells = new Map<string, Cell[]>();
  const answered = new Map<ServeTargetKind, Map<string, number>>();
  const load: number[] = [];
  const targets: Target[] = [];
  try {
    for (const kind of kinds) targets.push(await startTarget(kind, directory, env));
    for (const target of targets) await loadCell(target, connectionCounts.at(-1) ?? 16, -1, 1);
    for (const connections of connectionCounts) {
      for (let round = 0; round < rounds; round++) {
        load.push(loadavg()[0] ?? 0);
        for (const target of targets) {
          const cell = await loadCell(target, connections, round);
          const name = `${target.kind} ${connections}`;
          cells.set(name, [...(cells.get(name) ?? []), cell]);
          const counts = answered.get(target.kind) ?? new Map<string, number>();
          counts.set(String(connections), (counts.get(String(connections)) ?? 0) + cell.answered);
          answered.set(target.kind, counts);
        }
      }
    }
    await Promise.all(targets.map(stopTarget));
    const lost = new Map<ServeTargetKind, number>();
    for (const kind of kinds.filter((kind) => kind.startsWith('orrery-sqlite'))) {
      const { SqliteSessionService } = await import('../src/sessions/sqlite/index.js');
      const service = new SqliteSessionService({ path: join(directory, orreryDatabaseFile(kind)) });
      lost.set(kind, await lostRuns(service, answered.get(kind)!));
      await service.close();
    }
    if (kinds.includes('orrery-postgres') && options.postgresUrl) {
      const { PostgresSessionService } = await import(
        '../src/sessions/postgres/postgres-session-service.js'
      );
      const service = new PostgresSessionService({ connectionString: options.postgresUrl, schema });
      lost.set('orrery-postgres', await lostRuns(service, answered.get('orrery-postgres')!));
      await service.close();
    }
    print({ kinds, cells, lost, load });
  } finally {
    for (const target of targets) if (target.child.exitCode === null) target.child.kill();
    if (options.postgresUrl) {
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: options.postgresUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
      await admin.end();
    }
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The median database CPU ms per request over the cells, or '-' when not measured. */
function databaseCpu(list: Cell[]): string {
  const values = list.flatMap((cell) =>
    cell.databaseCpuPerRequest === undefined ? [] : [cell.databaseCpuPerRequest],
  );
  return values.length === 0 ? '-' : median(values).toFixed(2);
}

function print(options: {
  kinds: ServeTargetKind[];
  cells: Map<string, Cell[]>;
  lost: Map<ServeTargetKind, number>;
  load: number[];
}): void {
  const { kinds, cells, lost, load } = options;
  console.log(
    `POST /run on loopback, stub model, each server in its own process, ${rounds} rounds of ${seconds} s a cell (targets in turn), each connection its own session; load average (1 min) at the rounds: ${load.map((value) => value.toFixed(1)).join(', ')}\n`,
  );
  console.log(
    '| connections | server | requests/s | p50 ms | p99 ms | CPU ms / request | database CPU ms / request | answered | failed | lost |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const connections of connectionCounts) {
    for (const kind of kinds) {
      const list = cells.get(`${kind} ${connections}`) ?? [];
      const sum = (pick: (cell: Cell) => number) =>
        list.reduce((total, cell) => total + pick(cell), 0);
      console.log(
        `| ${connections} | ${kind} | ${median(list.map((cell) => cell.requestsPerSecond)).toFixed(0)} | ${median(list.map((cell) => cell.p50))} | ${median(list.map((cell) => cell.p99))} | ${median(list.map((cell) => cell.cpuPerRequest)).toFixed(2)} | ${databaseCpu(list)} | ${sum((cell) => cell.answered)} | ${sum((cell) => cell.failed)} | ${lost.get(kind) ?? '-'} |`,
      );
    }
  }
  const pairs: [ServeTargetKind, ServeTargetKind][] = [
    ['orrery-sqlite', 'floor'],
    ['orrery-sqlite-exclusive', 'floor'],
    ['orrery-sqlite', 'adk-memory'],
    ['orrery-sqlite', 'adk-sqlite'],
    ['orrery-postgres', 'orrery-sqlite'],
    // The two stores at the same durability: every commit flushed to disk.
    ['orrery-postgres', 'orrery-sqlite-full'],
    ['orrery-sqlite-full', 'orrery-sqlite'],
    // The engines' own ratio, what the one above can be judged against.
    ['floor-postgres', 'floor'],
    ['orrery-postgres', 'floor'],
    ['floor-postgres', 'orrery-sqlite'],
    ['orrery-postgres', 'floor-postgres'],
  ];
  console.log(
    '\nRatios (median over the rounds of the per-round ratio; requests/s: higher is better for the first; CPU/request: the first over the second):\n',
  );
  // SQLite runs in the server's process; PostgreSQL's backends are separate processes: the
  // last column adds their CPU to the server's (the whole machine's cost of a request).
  console.log('| connections | ratio | requests/s | CPU ms / request | CPU incl. database |');
  console.log('|---:|---|---:|---:|---:|');
  for (const connections of connectionCounts) {
    for (const [first, second] of pairs) {
      const a = cells.get(`${first} ${connections}`);
      const b = cells.get(`${second} ${connections}`);
      if (!a || !b) continue;
      const throughput = median(
        a.map(
          (cell, round) => cell.requestsPerSecond / (b[round]?.requestsPerSecond ?? Number.NaN),
        ),
      );
      const cpu = median(
        a.map((cell, round) => cell.cpuPerRequest / (b[round]?.cpuPerRequest ?? Number.NaN)),
      );
      const whole = (cell: Cell) => cell.cpuPerRequest + (cell.databaseCpuPerRequest ?? 0);
      const cpuWhole = median(
        a.map((cell, round) => whole(cell) / (b[round] ? whole(b[round]) : Number.NaN)),
      );
      console.log(
        `| ${connections} | ${first} / ${second} | ${throughput.toFixed(2)}x | ${cpu.toFixed(2)}x | ${cpuWhole.toFixed(2)}x |`,
      );
    }
  }
}
