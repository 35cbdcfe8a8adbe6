/**
 * Real separate processes against one database: concurrent appenders and compactors, and
 * runners killed with SIGKILL in the middle of a transaction.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SessionKey } from '../../events/types.js';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { spawnWorker, type Worker } from './test-helpers/spawn-worker.js';
import type { WorkerConfig } from './test-helpers/worker.js';

const processes = 8;
const timeout = 60_000;

describePostgres('PostgreSQL with several runner processes', (url) => {
  const fixture = useSchemaFixture(url);
  let service: PostgresSessionService;
  const started: Worker[] = [];

  beforeAll(async () => {
    service = new PostgresSessionService({ pool: fixture.pool, schema: fixture.schema });
    await service.migrate();
  });
  afterAll(() => {
    for (const worker of started) worker.kill();
  });

  async function newSession(sessionId: string, events: number): Promise<SessionKey> {
    const key = { appName: 'app', userId: 'user', sessionId };
    await service.createSession(key);
    for (let index = 0; index < events; index++) {
      await service.appendEvent({ ...key, event: userTextEvent({ text: `seed ${index}` }) });
    }
    return key;
  }

  function start(key: SessionKey, job: WorkerConfig['job'], pauseAtCommit = false): Worker {
    const worker = spawnWorker({ url, schema: fixture.schema, ...key, job, pauseAtCommit });
    started.push(worker);
    return worker;
  }

  /** Every stored seq, checking that the whole history reads. */
  async function storedSeqs(key: SessionKey): Promise<number[]> {
    const session = await service.getSession({ ...key, events: 'full' });
    return session?.events.map((event) => event.seq) ?? [];
  }

  /** A transaction holding the session row until `unlock`. */
  async function lockSession(key: SessionKey) {
    const client = await fixture.pool.connect();
    await client.query('BEGIN');
    await client.query(
      `SELECT 1 FROM ${quoteIdentifier(fixture.schema)}.orrery_sessions
        WHERE app_name = $1 AND user_id = $2 AND id = $3 FOR UPDATE`,
      [key.appName, key.userId, key.sessionId],
    );
    return {
      async unlock() {
        await client.query('ROLLBACK');
        client.release();
      },
    };
  }

  /** Resolves once a statement on this suite's schema waits on a lock. */
  async function waitForLockWaiter(): Promise<void> {
    await pollActivity(
      `wait_event_type = 'Lock'`,
      (count) => count > 0,
      'the worker never waited on the session lock',
    );
  }

  /** Resolves once `count` statements of other backends on this suite's schema still run. */
  async function waitForStatements(count: number): Promise<void> {
    await pollActivity(
      `state = 'active'`,
      (running) => running === count,
      'a statement of a killed worker never ended',
    );
  }

  async function pollActivity(
    condition: string,
    done: (count: number) => boolean,
    failure: string,
  ): Promise<void> {
    const deadline = Date.now() + timeout / 2;
    for (;;) {
      const result = await fixture.pool.query(
        `SELECT count(*)::int AS count FROM pg_stat_activity
          WHERE ${condition} AND pid <> pg_backend_pid() AND position($1 in query) > 0`,
        [fixture.schema],
      );
      if (done(result.rows[0].count)) return;
      if (Date.now() > deadline) throw new Error(failure);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  function range(from: number, to: number): number[] {
    return Array.from({ length: to - from + 1 }, (_, index) => from + index);
  }

  it(
    `${processes} processes appending to one session: every event stored, seq unique and gapless`,
    async () => {
      const key = await newSession('appenders', 0);
      const perWorker = 25;
      const workers = Array.from({ length: processes }, (_, index) =>
        start(key, { kind: 'append', count: perWorker, tag: `worker ${index}` }),
      );
      await Promise.all(workers.map((worker) => worker.waitFor('ready')));
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const total = processes * perWorker;
      const seqs: number[] = [];
      const ids: string[] = [];
      for (const result of results) {
        if (result.kind !== 'append') throw new Error('unexpected result');
        // Each process sees its own appends in increasing seq order.
        expect(result.seqs).toEqual([...result.seqs].sort((a, b) => a - b));
        seqs.push(...result.seqs);
        ids.push(...result.ids);
      }
      expect(seqs.sort((a, b) => a - b)).toEqual(range(1, total));
      const full = await service.getSession({ ...key, events: 'full' });
      expect(full?.events.map((event) => event.seq)).toEqual(range(1, total));
      expect(new Set(full?.events.map((event) => event.id))).toEqual(new Set(ids));
      const summary = await service.listSessions({ appName: 'app', userId: 'user' });
      expect(summary.find((entry) => entry.sessionId === 'appenders')?.eventCount).toBe(total);
    },
    timeout,
  );

  it(
    `${processes} processes compacting the same window: exactly one stored, the others conflict`,
    async () => {
      const key = await newSession('compactors', 10);
      const workers = Array.from({ length: processes }, () =>
        start(key, { kind: 'compact', startSeq: 1, endSeq: 8, expectedCheckpointSeq: null }),
      );
      await Promise.all(workers.map((worker) => worker.waitFor('ready')));
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const stored = results.filter((result) => 'outcome' in result && result.outcome === 'stored');
      const conflicts = results.filter(
        (result) => 'outcome' in result && result.outcome === 'conflict',
      );
      expect(stored).toEqual([{ kind: 'compact', outcome: 'stored', seq: 11 }]);
      expect(conflicts).toHaveLength(processes - 1);
      for (const conflict of conflicts) expect(conflict).toMatchObject({ actualCheckpointSeq: 11 });
      const full = await service.getSession({ ...key, events: 'full' });
      expect(full?.events.filter((event) => event.actions.compaction)).toHaveLength(1);
      expect((await service.loadView(key)).checkpoint?.seq).toBe(11);
    },
    timeout,
  );

  it(
    'a runner killed mid-append (before COMMIT) leaves the session whole, with no gap',
    async () => {
      const key = await newSession('crash-append', 5);
      // app: state makes the append a transaction, so it has a COMMIT to stop before.
      const job = { kind: 'append', count: 1, tag: 'doomed', appState: true } as const;
      const worker = start(key, job, true);
      await worker.waitFor('ready');
      worker.go();
      await worker.waitFor('paused');
      worker.kill();
      expect((await worker.exited).signal).toBe('SIGKILL');
      // The killed backend's row lock is released: the next append is not blocked.
      const next = await service.appendEvent({
        ...key,
        event: userTextEvent({ text: 'after the crash' }),
      });
      expect(next.seq).toBe(6);
      expect(await storedSeqs(key)).toEqual(range(1, 6));
      const texts = (await service.getSession({ ...key, events: 'full' }))?.events.map(
        (event) => event.content?.parts[0]?.text,
      );
      expect(texts).not.toContain('doomed #0');
    },
    timeout,
  );

  it(
    'a runner killed while its one-statement append waits: the event is whole or absent, no gap',
    async () => {
      const key = await newSession('crash-statement', 5);
      // The session row held here: the worker's append statement is sent and then waits.
      const lock = await lockSession(key);
      try {
        const worker = start(key, { kind: 'append', count: 1, tag: 'in flight' });
        await worker.waitFor('ready');
        worker.go();
        await waitForLockWaiter();
        worker.kill();
        expect((await worker.exited).signal).toBe('SIGKILL');
      } finally {
        await lock.unlock();
      }
      // The orphaned backend runs or drops the statement, racing this append for the row.
      const after = await service.appendEvent({ ...key, event: userTextEvent({ text: 'after' }) });
      await waitForStatements(0);
      // The statement commits entirely or not at all: never a gap or half an event.
      const events = (await service.getSession({ ...key, events: 'full' }))?.events ?? [];
      const seqs = events.map((event) => event.seq);
      expect(seqs).toEqual(range(1, seqs.length));
      expect([6, 7]).toContain(after.seq);
      const texts = events.slice(5).map((event) => event.content?.parts[0]?.text);
      expect(texts.sort()).toEqual(seqs.length === 7 ? ['after', 'in flight #0'] : ['after']);
    },
    timeout,
  );

  it(
    'a runner killed mid-compaction keeps the old checkpoint, and the window can be compacted again',
    async () => {
      const key = await newSession('crash-compaction', 6);
      await service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 3, text: 'old' }),
        expectedCheckpointSeq: null,
      });
      const worker = start(
        key,
        { kind: 'compact', startSeq: 1, endSeq: 6, expectedCheckpointSeq: 7 },
        true,
      );
      await worker.waitFor('ready');
      worker.go();
      await worker.waitFor('paused');
      worker.kill();
      await worker.exited;
      const view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(7);
      expect(view.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe('old');
      expect(view.tail.map((event) => event.seq)).toEqual([4, 5, 6]);
      expect(view.lastSeq).toBe(7);
      const retry = await service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 6, text: 'new' }),
        expectedCheckpointSeq: 7,
      });
      expect(retry.seq).toBe(8);
      expect((await service.loadView(key)).checkpoint?.seq).toBe(8);
    },
    timeout,
  );

  it(
    'a runner killed at a random point of an append loop leaves a whole, gapless session',
    async () => {
      const key = await newSession('crash-loop', 0);
      const worker = start(key, { kind: 'append', count: 100_000, tag: 'loop' });
      await worker.waitFor('ready');
      worker.go();
      await worker.waitFor('seq 30');
      worker.kill();
      await worker.exited;
      // Its last statement may still be running on the server: it commits or not, then ends.
      await waitForStatements(0);
      const acknowledged = Math.max(
        ...worker.lines
          .filter((line) => line.startsWith('seq '))
          .map((line) => Number(line.slice(4))),
      );
      const seqs = await storedSeqs(key);
      // Everything acknowledged is stored; at most the one in flight was committed unseen.
      expect(seqs.length).toBeGreaterThanOrEqual(acknowledged);
      expect(seqs.length).toBeLessThanOrEqual(acknowledged + 1);
      expect(seqs).toEqual(range(1, seqs.length));
      const next = await service.appendEvent({ ...key, event: userTextEvent({ text: 'after' }) });
      expect(next.seq).toBe(seqs.length + 1);
    },
    timeout,
  );
});
