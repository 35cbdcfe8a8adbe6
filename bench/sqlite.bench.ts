/**
 * SQLite store: the active view loads in O(tail) whatever the history length, next to the
 * full-history load an ADK-style store does every turn; plus append throughput for one session
 * and for 16 sessions written by 16 processes at once.
 *
 * Sessions hold realistic turns (user message, model function call, ~1.5 KB function response,
 * model answer) with a rolling compaction every 1000 events that keeps the last 200 raw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionKey } from '../src/events/types.js';
import { SqliteSessionService } from '../src/sessions/sqlite/index.js';
import { spawnWorker } from '../src/sessions/sqlite/test-helpers/spawn-worker.js';
import { compactionEvent, printViewTargets, time, turnEvent } from './workload.js';

const sizes = [1_000, 10_000, 100_000];
const compactionEvery = 1_000;
const retained = 200;

/** Fills a session through the service's own append path; returns raw events appended. */
async function build(service: SqliteSessionService, key: SessionKey, count: number): Promise<void> {
  await service.createSession(key);
  let checkpoint: number | null = null;
  let raw = 0;
  while (raw < count) {
    const stored = await service.appendEvent({ ...key, event: turnEvent(raw) });
    raw++;
    if (raw % compactionEvery === 0) {
      const compaction = await service.appendCompaction({
        ...key,
        event: compactionEvent(stored.seq - retained),
        expectedCheckpointSeq: checkpoint,
      });
      checkpoint = compaction.seq;
    }
  }
}

async function appendThroughputOneSession(path: string): Promise<number> {
  const service = new SqliteSessionService({ path });
  const key = { appName: 'bench', userId: 'user', sessionId: 'throughput' };
  await service.createSession(key);
  const count = 5_000;
  const start = performance.now();
  for (let index = 0; index < count; index++) {
    await service.appendEvent({ ...key, event: turnEvent(index) });
  }
  const seconds = (performance.now() - start) / 1000;
  await service.close();
  return count / seconds;
}

async function appendThroughputProcesses(path: string, processes: number): Promise<number> {
  const service = new SqliteSessionService({ path });
  const perWorker = 500;
  const keys = Array.from({ length: processes }, (_, worker) => ({
    appName: 'bench',
    userId: 'user',
    sessionId: `parallel-${worker}`,
  }));
  for (const key of keys) await service.createSession(key);
  await service.close();
  const workers = keys.map((key, worker) =>
    spawnWorker({ ...key, path, mode: 'append', count: perWorker, worker, textBytes: 1_200 }),
  );
  await Promise.all(workers.map((worker) => worker.waitFor((message) => message.type === 'ready')));
  const start = performance.now();
  for (const worker of workers) worker.child.send('go');
  await Promise.all(workers.map((worker) => worker.waitFor((message) => message.type === 'done')));
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(workers.map((worker) => worker.exited));
  return (processes * perWorker) / seconds;
}

export async function run(_options: { datasets?: string }): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'orrery-bench-sqlite-'));
  try {
    const path = join(folder, 'bench.db');
    const service = new SqliteSessionService({ path });
    const rows: { size: number; view: number; full: number; tail: number; buildSeconds: number }[] =
      [];
    for (const size of sizes) {
      const key = { appName: 'bench', userId: 'user', sessionId: `history-${size}` };
      const buildStart = performance.now();
      await build(service, key, size);
      const buildSeconds = (performance.now() - buildStart) / 1000;
      const view = await service.loadView(key);
      const viewMs = await time(30, () => service.loadView(key));
      const fullMs = await time(size >= 100_000 ? 3 : 7, () =>
        service.getSession({ ...key, events: 'full' }),
      );
      rows.push({ size, view: viewMs, full: fullMs, tail: view.tail.length, buildSeconds });
    }
    await service.close();

    console.log(
      '| raw events | view events (checkpoint + tail) | loadView median ms | full-history median ms | full / view | build s (events/s) |',
    );
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const row of rows) {
      const total = row.size + Math.floor(row.size / compactionEvery);
      console.log(
        `| ${row.size} | 1 + ${row.tail} | ${row.view.toFixed(2)} | ${row.full.toFixed(1)} | ${(row.full / row.view).toFixed(0)}x | ${row.buildSeconds.toFixed(1)} (${Math.round(total / row.buildSeconds)}) |`,
      );
    }
    printViewTargets(rows);

    const single = await appendThroughputOneSession(join(folder, 'single.db'));
    const parallel = await appendThroughputProcesses(join(folder, 'parallel.db'), 16);
    console.log('\n| append throughput | events/s |');
    console.log('| --- | ---: |');
    console.log(`| 1 session, 1 process (realistic turn events) | ${Math.round(single)} |`);
    console.log(
      `| 16 sessions, 16 processes, one file (~1.3 KB events) | ${Math.round(parallel)} |`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
