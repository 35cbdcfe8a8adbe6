/**
 * Real processes running invocations on ONE session, on SQLite and PostgreSQL: the session
 * lease serializes them, so no request holds another invocation's call without its response,
 * no live call is summarized as dead, and each invocation's events are contiguous. A SIGKILLed
 * holder frees the session once its lease expires. Workers: test-helpers/lease-worker.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getText } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import { PostgresSessionService } from '../../sessions/postgres/postgres-session-service.js';
import {
  describePostgres,
  useSchemaFixture,
} from '../../sessions/postgres/test-helpers/pg-test-env.js';
import type { SessionService } from '../../sessions/session-service.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import type {
  LeaseWorkerStore,
  LeaseWorkerTask,
  RequestOrphan,
} from '../test-helpers/lease-worker.js';
import { type LeaseWorker, spawnLeaseWorker } from '../test-helpers/spawn-lease-worker.js';

const processes = 6;
const invocationsEach = 3;
/** Bounds a hang only: the lease wait and the test are far longer than any run should take. */
const timeout = 180_000;

interface StoreUnderTest {
  store: LeaseWorkerStore;
  service: SessionService;
}

function describeLeaseAcrossProcesses(name: string, setup: () => StoreUnderTest): void {
  describe(`session lease across processes: ${name}`, () => {
    let workers: LeaseWorker[] = [];
    let counter = 0;

    afterEach(async () => {
      for (const worker of workers)
        if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((worker) => worker.exited));
      workers = [];
    });

    async function newSession(): Promise<{ appName: string; userId: string; sessionId: string }> {
      const key = { appName: 'lease-app', userId: 'user', sessionId: `shared-${++counter}` };
      await setup().service.createSession(key);
      return key;
    }

    function start(task: Omit<LeaseWorkerTask, 'store'>): LeaseWorker {
      const worker = spawnLeaseWorker({ ...task, store: setup().store });
      workers.push(worker);
      return worker;
    }

    it(
      `${processes} processes x ${invocationsEach} tool-calling invocations on one session, compacting: paired requests, contiguous invocations`,
      async () => {
        const key = await newSession();
        const started = Array.from({ length: processes }, (_, worker) =>
          start({
            ...key,
            worker,
            mode: 'run',
            invocations: invocationsEach,
            sessionLease: { waitMs: 150_000 },
            toolDelayMs: 30,
          }),
        );
        await Promise.all(started.map((worker) => worker.waitFor('ready')));
        for (const worker of started) worker.go();
        const done = await Promise.all(started.map((worker) => worker.waitFor('done')));

        expect(done.map((message) => [message.finished, message.busy])).toEqual(
          Array(processes).fill([invocationsEach, 0]),
        );
        const orphans: RequestOrphan[] = started.flatMap((worker) =>
          worker.messages.flatMap((message) => (message.type === 'request' ? message.orphans : [])),
        );
        expect(orphans).toEqual([]);
        const requests = done.reduce((sum, message) => sum + message.requests, 0);
        expect(requests).toBe(processes * invocationsEach * 2);

        const service = setup().service;
        const events = (await service.getSession({ ...key, events: 'full' }))!.events;
        expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
        const compactions = events.filter((event) => event.actions.compaction);
        expect(compactions.length).toBeGreaterThan(0);
        for (const compaction of compactions) {
          const summary = getText(compaction.actions.compaction!.compactedContent);
          expect(summary).not.toContain('never returned');
        }
        const turns = events.filter((event) => !event.actions.compaction);
        expect(turns).toHaveLength(processes * invocationsEach * 4);
        expectContiguousInvocations(turns);
      },
      timeout,
    );

    it(
      'a SIGKILLed holder frees the session once its lease expires; the next process runs',
      async () => {
        const key = await newSession();
        const ttlMs = 2_000;
        const holder = start({ ...key, worker: 0, mode: 'hold', sessionLease: { ttlMs } });
        await holder.waitFor('ready');
        holder.go();
        await holder.waitFor('holding');
        const service = setup().service;
        // Held: a caller that will not wait is refused while the holder lives.
        const refused = await service.acquireLease!({ ...key, waitMs: 0 }).then(
          () => 'acquired',
          (error: unknown) => (error as Error).name,
        );
        expect(refused).toBe('SessionBusyError');
        holder.child.kill('SIGKILL');
        expect((await holder.exited).signal).toBe('SIGKILL');
        // The dead holder renewed at most up to its death: its lease expires, so this wait ends
        // (a lease that never expired would be a SessionBusyError here).
        const lease = await service.acquireLease!({ ...key, waitMs: 60_000, ttlMs });
        await lease.release();

        const next = start({
          ...key,
          worker: 1,
          mode: 'run',
          invocations: 1,
          sessionLease: { waitMs: 60_000, ttlMs },
        });
        await next.waitFor('ready');
        next.go();
        const done = await next.waitFor('done');
        expect([done.finished, done.busy]).toEqual([1, 0]);
      },
      timeout,
    );
  });
}

/** Each invocation's events are one block: user message, call, response, answer. */
function expectContiguousInvocations(turns: Event[]): void {
  const blocks: string[][] = [];
  let current = '';
  for (const event of turns) {
    if (event.invocationId !== current) {
      current = event.invocationId;
      blocks.push([]);
    }
    const part = event.content?.parts[0];
    const kind = part?.functionCall ? 'call' : part?.functionResponse ? 'response' : event.author;
    blocks[blocks.length - 1]!.push(kind);
  }
  expect(new Set(turns.map((event) => event.invocationId)).size).toBe(blocks.length);
  for (const block of blocks) expect(block).toEqual(['user', 'call', 'response', 'prober']);
}

describe('SQLite', () => {
  const folder = mkdtempSync(join(tmpdir(), 'orrery-lease-processes-'));
  const path = join(folder, 'orrery.db');
  const service = new SqliteSessionService({ path });
  afterAll(async () => {
    await service.close();
    rmSync(folder, { recursive: true, force: true });
  });
  describeLeaseAcrossProcesses('SQLite', () => ({ store: { kind: 'sqlite', path }, service }));
});

describePostgres('PostgreSQL', (url) => {
  const fixture = useSchemaFixture(url);
  let service: PostgresSessionService;
  beforeAll(async () => {
    service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    await service.migrate();
  });
  describeLeaseAcrossProcesses('PostgreSQL', () => ({
    store: { kind: 'postgres', url, schema: fixture.schema },
    service,
  }));
});
