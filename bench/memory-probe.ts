/**
 * One memory measurement in its own process, so its figures are that process's own peak:
 * `node --expose-gc <bundled probe> '<json task>'`, spawned by `memory.bench.ts` with an IPC
 * channel. It runs the task, then sends `maxRSS` (the kernel's peak, exact), the highest heap
 * sampled (every 5 ms and after each step: a lower bound when one synchronous step allocates
 * and frees between samples) and the RSS and heap the process had before the measured step
 * (after a full GC), so the step's own cost is peak - before. Packages a step does not need are
 * imported only by the steps that do (ADK alone adds ~130 MB of RSS at import), so no figure
 * carries another step's code.
 */
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import type { SessionService } from '../src/sessions/session-service.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { seed, turnTimes } from './runner-turn.bench.js';

export type Store =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; schema: string };

export type ProbeTask =
  | { step: 'seed'; store: Store; events: number }
  | { step: 'turn'; store: Store; events: number }
  | { step: 'full-history'; store: Store; events: number }
  | { step: 'adk-turn'; events: number }
  | { step: 'cli'; argv: string[] };

export interface ProbeResult {
  maxRssBytes: number;
  peakHeapBytes: number;
  rssBeforeBytes: number;
  heapBeforeBytes: number;
  milliseconds: number;
  note?: string;
}

const sessionKey = (events: number) => ({
  appName: 'bench',
  userId: 'user',
  sessionId: `session-${events}`,
});

async function openStore(store: Store): Promise<SessionService> {
  switch (store.kind) {
    case 'memory':
      return new InMemorySessionService();
    case 'sqlite':
      return new SqliteSessionService({ path: store.path });
    case 'postgres': {
      const { PostgresSessionService } = await import('../src/sessions/postgres/index.js');
      return new PostgresSessionService({ connectionString: store.url, schema: store.schema });
    }
  }
}

async function seedPostgres(
  store: Extract<Store, { kind: 'postgres' }>,
  events: number,
): Promise<undefined> {
  const { default: pg } = await import('pg');
  const { PostgresSessionService } = await import('../src/sessions/postgres/index.js');
  const { seed: seedPostgresRows } = await import('./postgres.bench.js');
  const pool = new pg.Pool({ connectionString: store.url, max: 2 });
  const service = new PostgresSessionService({ pool, schema: store.schema });
  try {
    const key = sessionKey(events);
    await service.createSession(key);
    await seedPostgresRows(pool, store.schema, key, events);
  } finally {
    await service.close();
    await pool.end();
  }
  return undefined;
}

let peakHeap = 0;
function sample(): void {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('memory-probe needs node --expose-gc');
  gc();
}

/** Prepares what the task needs (not measured), then returns the measured step. */
async function prepare(task: ProbeTask): Promise<() => Promise<string | undefined>> {
  switch (task.step) {
    case 'seed': {
      const store = task.store;
      // PostgreSQL appends one round trip at a time: seed it in bulk, as its own bench does.
      if (store.kind === 'postgres') return () => seedPostgres(store, task.events);
      const service = await openStore(store);
      return async () => {
        await seed(service, sessionKey(task.events).sessionId, task.events);
        await service.close?.();
        return undefined;
      };
    }
    case 'turn': {
      const service = await openStore(task.store);
      const { sessionId } = sessionKey(task.events);
      // The in-memory store holds the history in this process: seed it before the baseline.
      if (task.store.kind === 'memory') await seed(service, sessionId, task.events);
      return async () => {
        const median = await turnTimes(service, sessionId);
        await service.close?.();
        return `median turn ${median.toFixed(2)} ms`;
      };
    }
    case 'full-history': {
      const service = await openStore(task.store);
      const key = sessionKey(task.events);
      if (task.store.kind === 'memory') await seed(service, key.sessionId, task.events);
      return async () => {
        const session = await service.getSession({ ...key, events: 'full' });
        sample();
        const count = session?.events.length ?? 0;
        await service.close?.();
        return `${count.toLocaleString('en-US')} events loaded`;
      };
    }
    case 'adk-turn': {
      const { adkTurnTimes, seedAdkMemory } = await import('./adk-session.js');
      const { service, sessionId } = await seedAdkMemory(task.events);
      return async () => {
        const median = await adkTurnTimes({ service, sessionId, turns: 1 });
        return `one turn ${median.toFixed(0)} ms`;
      };
    }
    case 'cli': {
      const { main } = await import('../src/cli/main.js');
      return async () => `exit code ${await main(task.argv)}`;
    }
  }
}

async function probe(task: ProbeTask): Promise<ProbeResult> {
  const step = await prepare(task);
  collect();
  const before = process.memoryUsage();
  peakHeap = before.heapUsed;
  const timer = setInterval(sample, 5);
  const start = performance.now();
  try {
    const note = await step();
    sample();
    return {
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      peakHeapBytes: peakHeap,
      rssBeforeBytes: before.rss,
      heapBeforeBytes: before.heapUsed,
      milliseconds: performance.now() - start,
      note,
    };
  } finally {
    clearInterval(timer);
  }
}

const argument = process.argv[2];
if (argument && process.send) {
  const send = process.send.bind(process);
  try {
    const result = await probe(JSON.parse(argument) as ProbeTask);
    send({ result }, () => process.exit(0));
  } catch (error) {
    send({ error: error instanceof Error ? error.message : String(error) }, () => process.exit(1));
  }
}
