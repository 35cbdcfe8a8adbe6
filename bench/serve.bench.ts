/**
 * `orrery serve` under load, on loopback, against a stub model that answers at once: requests/s
 * and latency p50/p99 of `POST /run` at 1, 16 and 64 concurrent sessions (each connection its
 * own session), for 5 s a cell (`ORRERY_BENCH_SERVE_SECONDS`), on SQLite and, with a PostgreSQL
 * URL, on two replicas sharing it (two servers in this process, each with its own pool; the
 * connections split between them). After each cell every session is read back: each answered
 * run's events must be stored (`lost` must be 0). The last table sets the server's own
 * overhead per turn (HTTP, JSON, auth, access log) beside the library's turn on the same store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/runner.js';
import { createServer } from '../src/server/create-server.js';
import type { ListeningServer } from '../src/server/listen.js';
import { quoteIdentifier } from '../src/sessions/postgres/migrations.js';
import { PostgresSessionService } from '../src/sessions/postgres/postgres-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';
import type { BenchOptions } from './run.js';
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
interface AutocannonClient {
  setBody(body: string): void;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const concurrencies = [1, 16, 64];
const seconds = Number(process.env.ORRERY_BENCH_SERVE_SECONDS ?? 5);
const APP = 'bench';
const TOKEN = 'bench-token-0123456789abcdef';

const stubModel = {
  modelId: 'stub',
  contextWindowTokens: 1_000_000,
  generate: async () => textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
};

function newRunner(service: SessionService): Runner {
  return new Runner({
    appName: APP,
    agent: new LlmAgent({ name: 'agent', model: stubModel }),
    sessionService: service,
    // The triggers are checked every turn, as in production; none fires at this size.
    compaction: {
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      summarizer: new DigestSummarizer(),
    },
    logger: false,
    background: true,
  });
}

/** Access logs are written (to nowhere): their cost is part of the server's. */
function nullLogger() {
  return pino(
    { level: 'info' },
    new Writable({ write: (_chunk, _encoding, callback) => callback() }),
  );
}

async function startReplicas(services: SessionService[]): Promise<ListeningServer[]> {
  return Promise.all(
    services.map((service) =>
      createServer({
        runner: newRunner(service),
        sessionService: service,
        logger: nullLogger(),
        auth: { grants: [{ token: TOKEN, userIds: ['user'] }] },
      }).listen({ port: 0, host: '127.0.0.1' }),
    ),
  );
}

interface Cell {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  answered: number;
  failed: number;
  lost: number;
}

async function loadCell(options: {
  replicas: ListeningServer[];
  service: SessionService;
  connections: number;
  cell: string;
}): Promise<Cell> {
  const { replicas, service, connections } = options;
  const sessionIds = Array.from({ length: connections }, (_, index) => `${options.cell}-${index}`);
  for (const sessionId of sessionIds)
    await service.createSession({ appName: APP, userId: 'user', sessionId });
  // The connections split across the replicas; each connection drives its own session.
  const shares = replicas.map((_, index) =>
    sessionIds.filter((_, session) => session % replicas.length === index),
  );
  const results = await Promise.all(
    replicas.flatMap((replica, index) => {
      const share = shares[index] ?? [];
      if (share.length === 0) return [];
      let next = 0;
      return [
        autocannon({
          url: `${replica.url}/run`,
          method: 'POST',
          connections: share.length,
          duration: seconds,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          setupClient: (client: AutocannonClient) => {
            const sessionId = share[next++ % share.length];
            client.setBody(
              JSON.stringify({
                appName: APP,
                userId: 'user',
                sessionId,
                newMessage: { role: 'user', parts: [{ text: 'next' }] },
              }),
            );
          },
        }),
      ];
    }),
  );
  const answered = results.reduce((sum, result) => sum + result['2xx'], 0);
  // Every answered run left its user message and answer; runs the bench's end cut off may
  // have left a user message alone, never a gap.
  let complete = 0;
  for (const sessionId of sessionIds) {
    const page = await service.listEvents({
      appName: APP,
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
  return {
    requestsPerSecond: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    answered,
    failed: results.reduce(
      (sum, result) => sum + result.non2xx + result.errors + result.timeouts,
      0,
    ),
    lost: Math.max(0, answered - complete),
  };
}

/** The library's turn on the same store: `runner.run` drained, no HTTP. */
async function libraryTurn(service: SessionService, sessionId: string): Promise<number> {
  await service.createSession({ appName: APP, userId: 'user', sessionId });
  const runner = newRunner(service);
  const samples: number[] = [];
  for (let turn = 0; turn < 200; turn++) {
    const started = performance.now();
    for await (const _event of runner.run({ userId: 'user', sessionId, newMessage: 'next' })) {
      // drained
    }
    samples.push(performance.now() - started);
  }
  await runner.flush();
  return median(samples);
}

/** The same turn over HTTP: sequential `/run` requests from one client, median. */
async function httpTurn(url: string, service: SessionService, sessionId: string): Promise<number> {
  await service.createSession({ appName: APP, userId: 'user', sessionId });
  const body = JSON.stringify({
    appName: APP,
    userId: 'user',
    sessionId,
    newMessage: { role: 'user', parts: [{ text: 'next' }] },
  });
  const samples: number[] = [];
  for (let turn = 0; turn < 200; turn++) {
    const started = performance.now();
    const response = await fetch(`${url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`/run answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function storeRows(options: {
  name: string;
  services: SessionService[];
  rows: string[];
  overhead: string[];
}): Promise<void> {
  const { services } = options;
  const replicas = await startReplicas(services);
  const reader = services[0]!;
  try {
    for (const connections of concurrencies) {
      const cell = await loadCell({
        replicas,
        service: reader,
        connections,
        cell: `${options.name}-c${connections}`,
      });
      options.rows.push(
        `| ${options.name} | ${connections} | ${cell.requestsPerSecond.toFixed(0)} | ${cell.p50} | ${cell.p99} | ${cell.answered} | ${cell.failed} | ${cell.lost} |`,
      );
    }
    // Interleaved, so both see the same machine load.
    const library: number[] = [];
    const http: number[] = [];
    for (let round = 0; round < 3; round++) {
      library.push(await libraryTurn(reader, `${options.name}-library-${round}`));
      http.push(await httpTurn(replicas[0]!.url, reader, `${options.name}-http-${round}`));
    }
    const [libraryMs, httpMs] = [median(library), median(http)];
    options.overhead.push(
      `| ${options.name} | ${libraryMs.toFixed(2)} | ${httpMs.toFixed(2)} | ${(httpMs - libraryMs).toFixed(2)} |`,
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.shutdown({ timeoutMs: 5_000 })));
  }
}

export async function run(options: BenchOptions = {}): Promise<void> {
  const rows: string[] = [];
  const overhead: string[] = [];
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-serve-'));
  try {
    const sqlite = new SqliteSessionService({ path: join(directory, 'serve.db') });
    await storeRows({ name: 'sqlite', services: [sqlite], rows, overhead });
    await sqlite.close();
    if (options.postgresUrl) {
      const schema = `orrery_bench_serve_${randomBytes(6).toString('hex')}`;
      const replicas = [0, 1].map(
        () => new PostgresSessionService({ connectionString: options.postgresUrl, schema }),
      );
      try {
        await storeRows({ name: 'postgres x2', services: replicas, rows, overhead });
      } finally {
        const { default: pg } = await import('pg');
        const admin = new pg.Client({ connectionString: options.postgresUrl });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
        await admin.end();
        await Promise.all(replicas.map((replica) => replica.close()));
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  console.log(
    `POST /run on loopback, stub model, ${seconds} s a cell, each connection its own session:\n`,
  );
  console.log('| store | sessions | requests/s | p50 ms | p99 ms | answered | failed | lost |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(
    "\nThe server's own overhead per turn: 200 sequential turns on one session, median of 3 rounds:\n",
  );
  console.log('| store | library turn ms | same turn over /run ms | server overhead ms |');
  console.log('|---|---:|---:|---:|');
  for (const row of overhead) console.log(row);
}
