/**
 * A whole Runner turn before the model, the figure `PEERS.md` gives for ADK (27 ms / 288 ms /
 * 3,578 ms in memory and 142 / 995 / 8,208 ms on SQLite at 1k / 10k / 100k events): append the
 * user message, load the view, estimate the next request, call a stub model that answers at
 * once, append its answer, and run the after-invocation triggers. Sessions hold realistic
 * turns with a rolling compaction every 1000 events, so the tail stays bounded; the turn's
 * cost must not grow with history. Also one append into a long in-memory session.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { quoteIdentifier } from '../src/sessions/postgres/migrations.js';
import { PostgresSessionService } from '../src/sessions/postgres/postgres-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { DigestSummarizer } from '../src/summarizers/index.js';
import { textResponse } from '../src/testing/scripted-model.js';
import type { BenchOptions } from './run.js';
import { compactionEvent, median, turnEvent } from './workload.js';

const sizes = [1_000, 10_000, 100_000];
const compactionEvery = 1_000;
const retained = 200;
const turns = 30;

/** A model that answers at once: the bench times orrery, not a provider. */
const stubModel = {
  modelId: 'stub',
  contextWindowTokens: 1_000_000,
  generate: async () => textResponse('ok', { promptTokenCount: 9_000, candidatesTokenCount: 1 }),
};

export async function seed(
  service: SessionService,
  sessionId: string,
  count: number,
): Promise<void> {
  const key = { appName: 'bench', userId: 'user', sessionId };
  await service.createSession(key);
  let checkpointSeq: number | null = null;
  for (let index = 0; index < count; index++) {
    const stored = await service.appendEvent({ ...key, event: turnEvent(index) });
    if ((index + 1) % compactionEvery === 0) {
      const compaction = await service.appendCompaction({
        ...key,
        event: compactionEvent(stored.seq - retained),
        expectedCheckpointSeq: checkpointSeq,
      });
      checkpointSeq = compaction.seq;
    }
  }
}

/** Per turn, in order: wall-clock ms and CPU ms (user + system) of each of `turns` turns. */
export interface TurnSamples {
  wall: number[];
  cpu: number[];
}

export async function turnSamples(
  service: SessionService,
  sessionId: string,
): Promise<TurnSamples> {
  const runner = new Runner({
    appName: 'bench',
    agent: new LlmAgent({ name: 'agent', model: stubModel }),
    sessionService: service,
    compaction: {
      tokenThreshold: 250_000,
      eventRetentionSize: 10,
      compactionInterval: 100,
      overlapSize: 1,
      summarizer: new DigestSummarizer(),
    },
    logger: false,
  });
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    for await (const _event of runner.run({ userId: 'user', sessionId, newMessage: 'next' })) {
      // drain: the turn ends when the iterable does
    }
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

/** The median wall-clock ms of `turns` turns (the first, cold one included). */
export async function turnTimes(service: SessionService, sessionId: string): Promise<number> {
  return median((await turnSamples(service, sessionId)).wall);
}

/**
 * The CPU the turns used (user + system): on a loaded machine the wall-clock median also counts
 * the time the process waited for a core, CPU time does not. `cpuMean` is the mean of all
 * turns, the first of which reads the whole tail cold (up to ~1,200 events here);
 * `cpuWarmMedian` is the median of the others, what a turn costs once the view is cached.
 */
async function turnCosts(
  service: SessionService,
  sessionId: string,
): Promise<{ median: number; cpuMean: number; cpuWarmMedian: number }> {
  const samples = await turnSamples(service, sessionId);
  const cpuMean = samples.cpu.reduce((sum, value) => sum + value, 0) / samples.cpu.length;
  return {
    median: median(samples.wall),
    cpuMean,
    cpuWarmMedian: median(samples.cpu.slice(1)),
  };
}

async function appendTime(service: SessionService, sessionId: string): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < 200; index++) {
    const event = turnEvent(1_000_000 + index);
    const start = performance.now();
    await service.appendEvent({ appName: 'bench', userId: 'user', sessionId, event });
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * The PostgreSQL rows: the same history, bulk-seeded as postgres.bench.ts does (100k appends one
 * by one would take minutes), in a schema of its own dropped afterwards.
 */
async function postgresRows(postgresUrl: string, results: Map<string, number[]>): Promise<void> {
  const { default: pg } = await import('pg');
  const { seed: seedRows } = await import('./postgres.bench.js');
  const pool = new pg.Pool({ connectionString: postgresUrl, max: 4 });
  const schema = `orrery_bench_turn_${randomBytes(6).toString('hex')}`;
  const service = new PostgresSessionService({ pool, schema });
  try {
    const turnRow: number[] = [];
    const appendRow: number[] = [];
    for (const size of sizes) {
      const key = { appName: 'bench', userId: 'user', sessionId: `session-${size}` };
      await service.createSession(key);
      await seedRows(pool, schema, key, size);
      turnRow.push(await turnTimes(service, key.sessionId));
      appendRow.push(await appendTime(service, key.sessionId));
    }
    results.set('postgres turn', turnRow);
    results.set('postgres append', appendRow);
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    await service.close();
    await pool.end();
  }
}

export async function run(options: BenchOptions = {}): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-bench-turn-'));
  const rows: string[] = [];
  const results = new Map<string, number[]>();
  try {
    for (const backend of ['memory', 'sqlite', 'sqlite exclusive'] as const) {
      const turnRow: number[] = [];
      const cpuRow: number[] = [];
      const warmRow: number[] = [];
      const appendRow: number[] = [];
      for (const size of sizes) {
        const service: SessionService =
          backend === 'memory'
            ? new InMemorySessionService()
            : new SqliteSessionService({
                path: join(
                  directory,
                  `turn-${size}-${backend === 'sqlite' ? 'shared' : 'exclusive'}.db`,
                ),
                // One process on the file: leases in process, no lease row per turn.
                exclusive: backend === 'sqlite exclusive',
              });
        const sessionId = `session-${size}`;
        await seed(service, sessionId, size);
        const costs = await turnCosts(service, sessionId);
        turnRow.push(costs.median);
        cpuRow.push(costs.cpuMean);
        warmRow.push(costs.cpuWarmMedian);
        appendRow.push(await appendTime(service, sessionId));
        await service.close?.();
      }
      results.set(`${backend} turn`, turnRow);
      results.set(`${backend} turn, CPU mean with cold first turn`, cpuRow);
      results.set(`${backend} turn, CPU warm median`, warmRow);
      results.set(`${backend} append`, appendRow);
    }
    if (options.postgresUrl) await postgresRows(options.postgresUrl, results);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const peers: Record<string, string> = {
    'memory turn': '27 / 288 / 3,578',
    'sqlite turn': '142 / 995 / 8,208',
    'memory turn, CPU mean with cold first turn': '-',
    'memory turn, CPU warm median': '-',
    'sqlite turn, CPU mean with cold first turn': '-',
    'sqlite turn, CPU warm median': '-',
    'memory append': '0.04 / 5.7 / 60',
    'sqlite append': '15.8 / 14.7 / 30.3',
    'sqlite exclusive turn': '-',
    'sqlite exclusive turn, CPU mean with cold first turn': '-',
    'sqlite exclusive turn, CPU warm median': '-',
    'sqlite exclusive append': '-',
    'postgres turn': '-',
    'postgres append': '-',
  };
  rows.push(
    '| backend, operation (median ms) | 1,000 events | 10,000 | 100,000 | ratio 100k / 1k | ADK-JS 2.0 (PEERS.md) |',
    '|---|---:|---:|---:|---:|---|',
  );
  for (const [name, values] of results) {
    const [small, medium, large] = values as [number, number, number];
    rows.push(
      `| ${name} | ${small.toFixed(3)} | ${medium.toFixed(3)} | ${large.toFixed(3)} | ${(large / small).toFixed(2)} | ${peers[name]} |`,
    );
  }
  console.log(rows.join('\n'));
  console.log(
    `\nA turn: user append, view load, estimate, stub model call, answer append, after-invocation triggers (${turns} turns; "turn": the wall-clock median of all of them). "CPU": user + system CPU ms per turn, which waiting for a core on a busy machine does not inflate; "mean with cold first turn": the mean of all ${turns} turns, the first of which reads the whole tail (up to ~1,200 events) cold; "warm median": the median of turns 2-${turns}, once the view is cached (the 1 ms target of issue 22 is judged on this row).`,
  );
  if (!options.postgresUrl) {
    console.log('PostgreSQL rows skipped: set ORRERY_TEST_PG_URL (or ORRERY_BENCH_PG_URL).');
  }
}
