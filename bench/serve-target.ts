/**
 * One server of `npm run bench -- serve`, in a process of its own (so the load generator never
 * shares its event loop): `tsx bench/serve-target.ts <kind> <directory> <sessionIds,...>`. It
 * creates the sessions, listens on a free loopback port, prints `{ "url", "pid" }` on one line,
 * and on each `cpu` line on stdin prints its CPU time used so far (`{ "cpuMs" }`), so the bench
 * can set CPU per request beside requests/s. Kinds:
 *
 * - `orrery-sqlite`, `orrery-postgres`: `createServer` over a Runner, stub model, the compaction
 *   triggers checked every turn, bearer auth, access log written to nowhere (as `orrery serve`).
 * - `orrery-sqlite-exclusive`: the same on a SQLite store opened `exclusive` (`orrery serve
 *   --exclusive`: one process alone on its file, leases in process, as the floor has none).
 * - `orrery-sqlite-full`: the same on a SQLite store with `synchronous: 'full'`: every commit
 *   flushed to disk, as PostgreSQL's default `synchronous_commit = on` flushes each (the default
 *   `normal` flushes at checkpoints): the two stores at the same durability.
 * - `floor`: what the machine can do: bare `node:http` + better-sqlite3; parses the body, reads
 *   the session's last 50 events (parsed), writes the user event and the answer in one
 *   transaction, replies with the answer. No auth, no lease, no compaction, no validation.
 * - `floor-postgres`: the floor's work on PostgreSQL in the fewest round trips: one prepared
 *   statement a request (read the last 50 events, write the user event and the answer), a pool
 *   of 8 connections: what any server that stores a turn in PostgreSQL pays at least.
 * - `adk-memory`, `adk-sqlite`: ADK for TypeScript's own API server (`AdkApiServer` from
 *   `@google/adk-devtools`) on its default in-memory store or `DatabaseSessionService` (SQLite),
 *   the same stub model.
 */
import { createServer as createHttpServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

export const BENCH_APP = 'bench';
export const BENCH_TOKEN = 'bench-token-0123456789abcdef';
export type ServeTargetKind =
  | 'orrery-sqlite'
  | 'orrery-sqlite-exclusive'
  | 'orrery-sqlite-full'
  | 'orrery-postgres'
  | 'floor'
  | 'floor-postgres'
  | 'adk-memory'
  | 'adk-sqlite';

interface Started {
  port: number;
  close(): Promise<void>;
}

/**
 * The application_name this target's PostgreSQL connections carry: the bench finds their
 * backends by it (bench/postgres-backend-cpu.ts).
 */
export function benchApplicationName(pid: number): string {
  return `orrery-bench-serve-${pid}`;
}

/** `url` with `application_name` set, so the target's backends can be told from others'. */
function withApplicationName(url: string | undefined): string | undefined {
  if (!url) return url;
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', benchApplicationName(process.pid));
  return parsed.toString();
}

/** The SQLite file an orrery target writes, in the bench's directory. */
export function orreryDatabaseFile(kind: ServeTargetKind): string {
  if (kind === 'orrery-sqlite-exclusive') return 'orrery-exclusive.db';
  return kind === 'orrery-sqlite-full' ? 'orrery-full.db' : 'orrery.db';
}

async function startOrrery(kind: ServeTargetKind, directory: string, sessionIds: string[]) {
  const [{ default: pino }, { LlmAgent }, { Runner }, { createServer }, summarizers, testing] =
    await Promise.all([
      import('pino'),
      import('../src/runtime/agents/llm-agent.js'),
      import('../src/runtime/turn/runner.js'),
      import('../src/server/create-server.js'),
      import('../src/summarizers/index.js'),
      import('../src/testing/scripted-model.js'),
    ]);
  const service =
    kind === 'orrery-postgres'
      ? new (
          await import('../src/sessions/postgres/postgres-session-service.js')
        ).PostgresSessionService({
          connectionString: withApplicationName(process.env.ORRERY_BENCH_PG_URL),
          schema: process.env.ORRERY_BENCH_PG_SCHEMA,
        })
      : new (await import('../src/sessions/sqlite/index.js')).SqliteSessionService({
          path: join(directory, orreryDatabaseFile(kind)),
          exclusive: kind === 'orrery-sqlite-exclusive',
          synchronous: kind === 'orrery-sqlite-full' ? 'full' : 'normal',
        });
  for (const sessionId of sessionIds) {
    await service.createSession({ appName: BENCH_APP, userId: 'user', sessionId });
  }
  if (kind === 'orrery-postgres') await alterSchema();
  const runner = new Runner({
    appName: BENCH_APP,
    agent: new LlmAgent({
      name: 'agent',
      model: {
        modelId: 'stub',
        contextWindowTokens: 1_000_000,
        generate: async () =>
          testing.textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
      },
    }),
    sessionService: service,
    // The triggers are checked every turn, as in production; none fires at this size.
    compaction: {
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      summarizer: new summarizers.DigestSummarizer(),
    },
    logger: false,
    background: true,
  });
  const server = await createServer({
    runner,
    sessionService: service,
    // Access logs are written (to nowhere): their cost is part of the server's.
    logger: pino({ level: 'info' }, new Writable({ write: (_c, _e, done) => done() })),
    auth: { grants: [{ token: BENCH_TOKEN, userIds: ['user'] }] },
  }).listen({ port: 0, host: '127.0.0.1' });
  return {
    port: Number(new URL(server.url).port),
    close: async () => {
      await server.shutdown({ timeoutMs: 5_000 });
      await service.close();
    },
  };
}

/**
 * `ORRERY_BENCH_PG_ALTER`: statements run on the orrery-postgres target's schema once its
 * sessions exist (`;`-separated, `{schema}` replaced), to measure what an index costs a request.
 */
async function alterSchema() {
  const statements = (process.env.ORRERY_BENCH_PG_ALTER ?? '')
    .split(';')
    .filter((text) => text.trim());
  if (statements.length === 0) return;
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.ORRERY_BENCH_PG_URL });
  await client.connect();
  const schema = `"${process.env.ORRERY_BENCH_PG_SCHEMA}"`;
  for (const text of statements) await client.query(text.replaceAll('{schema}', schema));
  await client.end();
}

/** The floor: the least a server that stores a turn can do (see the file comment). */
async function startFloor(directory: string): Promise<Started> {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const database = new Database(join(directory, 'floor.db'));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.exec(
    'CREATE TABLE IF NOT EXISTS events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_id, seq))',
  );
  const last50 = database.prepare(
    'SELECT seq, event FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 50',
  );
  const insert = database.prepare('INSERT INTO events (session_id, seq, event) VALUES (?, ?, ?)');
  const turn = database.transaction((sessionId: string, message: unknown) => {
    const rows = last50.all(sessionId) as { seq: number; event: string }[];
    const history = rows.map((row) => JSON.parse(row.event));
    const seq = (rows[0]?.seq ?? 0) + 1;
    const now = Date.now() / 1000;
    insert.run(
      sessionId,
      seq,
      JSON.stringify({ author: 'user', content: message, timestamp: now }),
    );
    const answer = {
      author: 'agent',
      content: { role: 'model', parts: [{ text: 'ok' }] },
      timestamp: now,
      seq: seq + 1,
      seen: history.length,
    };
    insert.run(sessionId, seq + 1, JSON.stringify(answer));
    return answer;
  });
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const answer = turn(String(body.sessionId), body.newMessage);
        const json = JSON.stringify([answer]);
        response.writeHead(200, { 'content-type': 'application/json' }).end(json);
      } catch (error) {
        response.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      database.close();
    },
  };
}

/**
 * The floor on PostgreSQL (see the file comment): one statement a turn, whose read and two
 * inserts are one transaction; the history parsed in JavaScript as the SQLite floor's is.
 */
async function startFloorPostgres(): Promise<Started> {
  const { default: pg } = await import('pg');
  const table = `"${process.env.ORRERY_BENCH_PG_SCHEMA}".floor_events`;
  const pool = new pg.Pool({
    connectionString: withApplicationName(process.env.ORRERY_BENCH_PG_URL),
    max: 8,
    // The history read by the primary key, whatever the table held when the statement's
    // generic plan was made: made on the empty table, it is a bitmap scan of every event of
    // the session and a sort, kept as the table grows (2.5x the backend CPU at 16 connections).
    options: '-c enable_bitmapscan=off -c enable_seqscan=off',
  });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${process.env.ORRERY_BENCH_PG_SCHEMA}"`);
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${table} (session_id text NOT NULL, seq bigint NOT NULL, event text NOT NULL, PRIMARY KEY (session_id, seq))`,
  );
  const text = `WITH history AS MATERIALIZED (SELECT seq, event FROM ${table}
      WHERE session_id = $1 ORDER BY seq DESC LIMIT 50),
    next AS (SELECT coalesce(max(seq), 0) + 1 AS seq, count(*) AS seen FROM history),
    inserted AS (INSERT INTO ${table} (session_id, seq, event)
      SELECT $1, seq, $2 FROM next
      UNION ALL SELECT $1, seq + 1, json_build_object('author', 'agent',
        'content', json_build_object('role', 'model', 'parts', json_build_array(json_build_object('text', 'ok'))),
        'timestamp', $3::float8, 'seq', seq + 1, 'seen', seen)::text FROM next
      RETURNING seq, event)
    SELECT false AS answer, seq, event FROM history
    UNION ALL SELECT true, seq, event FROM inserted WHERE seq = (SELECT seq + 1 FROM next)`;
  const turn = async (sessionId: string, message: unknown) => {
    const now = Date.now() / 1000;
    const result = await pool.query<{ answer: boolean; event: string }>({
      name: 'floor-turn',
      text,
      values: [
        sessionId,
        JSON.stringify({ author: 'user', content: message, timestamp: now }),
        now,
      ],
    });
    const history = result.rows.filter((row) => !row.answer).map((row) => JSON.parse(row.event));
    const answer = result.rows.find((row) => row.answer);
    if (!answer) throw new Error(`floor-postgres: no answer stored after ${history.length} events`);
    return JSON.parse(answer.event) as unknown;
  };
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: { sessionId?: unknown; newMessage?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (error) {
        response.writeHead(400).end(String(error));
        return;
      }
      turn(String(body.sessionId), body.newMessage).then(
        (answer) => {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify([answer]));
        },
        (error: unknown) => response.writeHead(500).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}

async function startAdk(kind: ServeTargetKind, directory: string, sessionIds: string[]) {
  const adk = await import('@google/adk');
  const { AdkApiServer } = await import('@google/adk-devtools');
  const { StubModel } = await import('./adk-session.js');
  adk.setLogLevel(adk.LogLevel.ERROR);
  const sessionService =
    kind === 'adk-sqlite'
      ? new adk.DatabaseSessionService(`sqlite://${join(directory, 'adk.db')}`)
      : new adk.InMemorySessionService();
  for (const sessionId of sessionIds) {
    await sessionService.createSession({ appName: BENCH_APP, userId: 'user', sessionId });
  }
  const agent = new adk.LlmAgent({ name: 'agent', model: new StubModel() });
  // The loader the server asks for the app's agent on every run: the agent, already built.
  const agentLoader = {
    listAgents: async () => [BENCH_APP],
    getAgentFile: async () => ({
      load: async () => agent,
      [Symbol.asyncDispose]: async () => {},
    }),
  };
  const port = await freePort();
  const server = new AdkApiServer({
    host: '127.0.0.1',
    port,
    sessionService,
    agentLoader: agentLoader as never,
    logLevel: adk.LogLevel.ERROR,
    logger: {
      setLogLevel: () => {},
      log: () => {},
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: () => {},
    } as never,
  });
  const log = console.log;
  console.log = () => {}; // its start banner would garble the one line the bench reads
  await server.start();
  console.log = log;
  return { port, close: () => server.stop() };
}

async function freePort(): Promise<number> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function main(): Promise<void> {
  const [kind, directory, ids = ''] = process.argv.slice(2) as [ServeTargetKind, string, string];
  const sessionIds = ids.split(',').filter(Boolean);
  const started: Started =
    kind === 'floor'
      ? await startFloor(directory)
      : kind === 'floor-postgres'
        ? await startFloorPostgres()
        : kind.startsWith('adk')
          ? await startAdk(kind, directory, sessionIds)
          : await startOrrery(kind, directory, sessionIds);
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${started.port}`, pid: process.pid })}\n`,
  );
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'cpu') {
      const used = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000 })}\n`);
    }
  });
  lines.on('close', () => {
    void started.close().finally(() => process.exit(0));
  });
}

if (process.argv[1]?.endsWith('serve-target.ts')) await main();
