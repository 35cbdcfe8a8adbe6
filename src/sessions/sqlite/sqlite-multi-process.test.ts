/**
 * Real processes on one SQLite file: concurrent appends, racing compactions, and SIGKILL in the
 * middle of writes. Each worker is a separate node process (see test-helpers/).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isValidCompaction } from '../../compaction/view.js';
import { SQLITE_MIGRATIONS } from './migrations.js';
import { SqliteSessionService } from './sqlite-session-service.js';
import { spawnWorker, type Worker } from './test-helpers/spawn-worker.js';
import type { WorkerTask } from './test-helpers/sqlite-worker.js';

const key = { appName: 'app', userId: 'user', sessionId: 'shared' };
let folder: string;
let path: string;
let service: SqliteSessionService;
let workers: Worker[] = [];

function start(task: Omit<WorkerTask, 'path' | 'appName' | 'userId' | 'sessionId'>): Worker {
  const worker = spawnWorker({ ...task, ...key, path });
  workers.push(worker);
  return worker;
}

async function startAll(
  count: number,
  task: Omit<WorkerTask, 'path' | 'appName' | 'userId' | 'sessionId' | 'worker'>,
) {
  const started = Array.from({ length: count }, (_, worker) => start({ ...task, worker }));
  await Promise.all(started.map((worker) => worker.waitFor((message) => message.type === 'ready')));
  for (const worker of started) worker.child.send('go');
  return started;
}

beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'orrery-sqlite-processes-'));
  path = join(folder, 'orrery.db');
  service = new SqliteSessionService({ path });
  await service.createSession(key);
});

afterEach(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
  workers = [];
  await service.close();
  rmSync(folder, { recursive: true, force: true });
});

async function checkWhole(): Promise<{ seqs: number[]; lastSeq: number }> {
  const database = await service.getDatabase();
  expect(database.pragma('integrity_check', { simple: true })).toBe('ok');
  // Throw mode: any partial or unreadable row would fail these reads.
  const full = await service.getSession({ ...key, events: 'full' });
  const seqs = full!.events.map((event) => event.seq);
  const view = await service.loadView(key);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
  expect(view.lastSeq).toBe(seqs.length);
  const summaries = await service.listSessions(key);
  expect(summaries[0]?.eventCount).toBe(seqs.length);
  return { seqs, lastSeq: view.lastSeq };
}

describe('SqliteSessionService across processes', () => {
  it('6 processes opening a fresh file at once all come up and migrate it once', async () => {
    path = join(folder, 'fresh.db');
    const started = await startAll(6, { mode: 'fresh-start', count: 5 });
    const results = await Promise.all(
      started.map((worker) =>
        worker.waitFor((message) => message.type === 'done' || message.type === 'error'),
      ),
    );
    expect(results.map((message) => message.type)).toEqual(Array(6).fill('done'));
    const fresh = new SqliteSessionService({ path });
    try {
      const database = await fresh.getDatabase();
      expect(database.prepare('SELECT version FROM schema_migrations').all()).toEqual(
        SQLITE_MIGRATIONS.map((migration) => ({ version: migration.version })),
      );
      const sessions = await fresh.listSessions({ appName: key.appName, userId: key.userId });
      expect(sessions.map((session) => session.eventCount)).toEqual(Array(6).fill(5));
    } finally {
      await fresh.close();
    }
  });

  it('8 processes appending to one session store every event with unique gapless seqs', async () => {
    const perWorker = 60;
    const started = await startAll(8, { mode: 'append', count: perWorker });
    const done = await Promise.all(
      started.map((worker) => worker.waitFor((message) => message.type === 'done')),
    );
    const reported = done.flatMap((message) => (message.type === 'done' ? message.seqs : []));
    expect(new Set(reported).size).toBe(8 * perWorker);
    const { seqs } = await checkWhole();
    expect(seqs).toHaveLength(8 * perWorker);
    const events = (await service.getSession({ ...key, events: 'full' }))!.events;
    expect(new Set(events.map((event) => event.id)).size).toBe(8 * perWorker);
    // Each worker's own events keep their order.
    for (let worker = 0; worker < 8; worker++) {
      const own = events.filter((event) => event.invocationId === `worker-${worker}`);
      expect(own.map((event) => event.id)).toEqual(
        own.map((_, index) => `worker-${worker}-${index}`),
      );
    }
    // Search finds every event, whichever process indexed it (its idle time) or none did.
    const hits = await service.searchEvents({ ...key, query: 'worker', limit: 1000 });
    expect(hits.map((hit) => hit.event.id).sort()).toEqual(events.map((event) => event.id).sort());
  });

  it('8 processes compacting the same window: exactly one compaction is stored', async () => {
    for (let index = 0; index < 10; index++) {
      await service.appendEvent({
        ...key,
        event: { id: `e${index}`, invocationId: 'i', author: 'user', timestamp: 1, actions: {} },
      });
    }
    const started = await startAll(8, { mode: 'compact', endSeq: 8 });
    const results = await Promise.all(
      started.map((worker) =>
        worker.waitFor((message) => message.type === 'compacted' || message.type === 'conflict'),
      ),
    );
    expect(results.filter((message) => message.type === 'compacted')).toHaveLength(1);
    expect(results.filter((message) => message.type === 'conflict')).toHaveLength(7);
    const events = (await service.getSession({ ...key, events: 'full' }))!.events;
    expect(events.filter((event) => event.actions.compaction)).toHaveLength(1);
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(11);
    expect(view.tail.map((event) => event.seq)).toEqual([9, 10]);
  });

  it('a process killed mid-append leaves whole rows and a gapless history', async () => {
    const [worker] = await startAll(1, { mode: 'append-forever' });
    await worker!.waitFor((message) => message.type === 'progress' && message.appended >= 150);
    worker!.child.kill('SIGKILL');
    await worker!.exited;
    const { seqs } = await checkWhole();
    expect(seqs.length).toBeGreaterThanOrEqual(150);
    // The session stays writable by the next process.
    const next = await service.appendEvent({
      ...key,
      event: { id: 'after-crash', invocationId: 'i', author: 'user', timestamp: 1, actions: {} },
    });
    expect(next.seq).toBe(seqs.length + 1);
  });

  it('a process killed mid-compaction leaves the old or the new checkpoint, whole', async () => {
    const summaryBytes = 300_000;
    const [worker] = await startAll(1, { mode: 'compact-forever', summaryBytes });
    await worker!.waitFor((message) => message.type === 'progress' && message.compacted >= 5);
    worker!.child.kill('SIGKILL');
    await worker!.exited;
    await checkWhole();
    const events = (await service.getSession({ ...key, events: 'full' }))!.events;
    const compactions = events.filter(isValidCompaction);
    expect(compactions.length).toBeGreaterThanOrEqual(5);
    for (const compaction of compactions) {
      const text = compaction.actions.compaction.compactedContent.parts[0]?.text ?? '';
      expect(text).toBe(`len:${summaryBytes}:${'y'.repeat(summaryBytes)}`);
    }
    const view = await service.loadView(key);
    const best = compactions.reduce((a, b) =>
      b.actions.compaction.endSeq > a.actions.compaction.endSeq ? b : a,
    );
    expect(view.checkpoint?.seq).toBe(best.seq);
    const expectedTail = events
      .filter((event) => !event.actions.compaction && event.seq > best.actions.compaction.endSeq)
      .map((event) => event.seq);
    expect(view.tail.map((event) => event.seq)).toEqual(expectedTail);
    // The conditional append still works from the surviving checkpoint.
    const next = await service.appendCompaction({
      ...key,
      event: { ...best, id: 'after-crash' },
      expectedCheckpointSeq: best.seq,
    });
    expect(next.seq).toBe(events.length + 1);
  });
});
