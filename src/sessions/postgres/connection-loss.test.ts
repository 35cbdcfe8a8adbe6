/**
 * A lost PostgreSQL connection is an error of the operation in flight (a retryable
 * `SessionStoreError`), never an unhandled 'error' event; the same service works again once
 * the server is reachable, and no acknowledged event is lost. Connections are cut through a
 * TCP proxy or with `pg_terminate_backend`: the shared server itself keeps running.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { SessionKey } from '../../events/types.js';
import { compactionEvent, userTextEvent } from '../../testing/event-builders.js';
import { SessionStoreError } from '../errors.js';
import { quoteIdentifier } from './migrations.js';
import { PostgresSessionService } from './postgres-session-service.js';
import { describePostgres, useSchemaFixture } from './test-helpers/pg-test-env.js';
import { startTcpProxy, type TcpProxy } from './test-helpers/tcp-proxy.js';

/** Bounds a wait for something that must happen; never a measure of speed. */
const hangLimitMs = 30_000;

describePostgres('PostgreSQL connection loss', (url) => {
  const fixture = useSchemaFixture(url);
  // Read in beforeAll: a skipped suite's body still runs, with an empty URL.
  let target: URL;
  let proxy: TcpProxy;
  let faults: unknown[];
  const services: PostgresSessionService[] = [];
  const onFault = (fault: unknown) => faults.push(fault);

  beforeAll(async () => {
    target = new URL(url);
    proxy = await startTcpProxy({
      targetHost: target.hostname,
      targetPort: Number(target.port || 5432),
    });
  });
  afterAll(async () => {
    await proxy.close();
  });
  beforeEach(() => {
    faults = [];
    process.on('uncaughtException', onFault);
    process.on('unhandledRejection', onFault);
    proxy.accept();
    proxy.release();
  });
  afterEach(async () => {
    proxy.accept();
    proxy.release();
    for (const service of services.splice(0)) await service.close();
    process.off('uncaughtException', onFault);
    process.off('unhandledRejection', onFault);
  });

  /** A unique `application_name`, so the test finds exactly this service's backends. */
  function applicationName(): string {
    return `orrery_loss_${randomBytes(4).toString('hex')}`;
  }

  function withApplicationName(base: string, name: string): string {
    const parsed = new URL(base);
    parsed.searchParams.set('application_name', name);
    return parsed.toString();
  }

  /** Called at the service's next warning (an idle connection lost). */
  let warned: (() => void) | undefined;

  function newService(options: {
    connectionString?: string;
    pool?: pg.Pool;
    queryTimeoutMs?: number;
    connectionTimeoutMs?: number;
    warnings?: string[];
  }) {
    const service = new PostgresSessionService({
      schema: fixture.schema,
      connectionString: options.connectionString,
      pool: options.pool,
      queryTimeoutMs: options.queryTimeoutMs,
      connectionTimeoutMs: options.connectionTimeoutMs,
      logger: {
        warn: (_fields, message) => {
          options.warnings?.push(message);
          warned?.();
        },
      },
    });
    services.push(service);
    return service;
  }

  /** A session with `count` events; returns its key and what was acknowledged. */
  async function seededSession(service: PostgresSessionService, count: number) {
    const key = { appName: 'app', userId: 'u', sessionId: `s-${randomBytes(4).toString('hex')}` };
    await service.createSession(key);
    const acknowledged = new Map<number, string>();
    for (let index = 0; index < count; index++) {
      const stored = await service.appendEvent({
        ...key,
        event: userTextEvent({ text: `${index}` }),
      });
      acknowledged.set(stored.seq, stored.id);
    }
    return { key, acknowledged };
  }

  /** Row-locks the session from a second connection, so the service's writes wait on it. */
  async function lockSession(key: SessionKey) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    await client.connect();
    await client.query('BEGIN');
    await client.query(
      `SELECT 1 FROM ${quoteIdentifier(fixture.schema)}.orrery_sessions
        WHERE app_name = $1 AND user_id = $2 AND id = $3 FOR UPDATE`,
      [key.appName, key.userId, key.sessionId],
    );
    return {
      async unlock() {
        await client.query('ROLLBACK');
        await client.end();
      },
    };
  }

  /** Resolves once a backend of `name` waits on a lock (the statement has started). */
  async function waitUntilBlocked(name: string): Promise<void> {
    const deadline = Date.now() + hangLimitMs;
    for (;;) {
      const result = await fixture.pool.query(
        `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE NOT l.granted AND a.application_name = $1`,
        [name],
      );
      if (result.rows[0].waiting > 0) return;
      if (Date.now() > deadline) throw new Error(`no backend of ${name} ever waited on a lock`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * A store call whose failure the test awaits later: handled from the start, so a rejection that
   * lands while the test still awaits the kill is no 'unhandledRejection' fault.
   */
  function pending<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => undefined);
    return promise;
  }

  async function expectRetryable(promise: Promise<unknown>, operation: string, sessionId?: string) {
    const error = await promise.then(
      () => {
        throw new Error(`${operation} succeeded although its connection was cut`);
      },
      (caught: unknown) => caught,
    );
    expect(SessionStoreError.isInstance(error), String(error)).toBe(true);
    expect((error as SessionStoreError).retryable).toBe(true);
    expect((error as Error).message).toContain(operation);
    if (sessionId) expect((error as SessionStoreError).sessionId).toBe(sessionId);
    return error as SessionStoreError;
  }

  /** Everything acknowledged is stored at its seq, and seq runs 1..n without a gap. */
  async function expectWhole(
    service: PostgresSessionService,
    key: SessionKey,
    acknowledged: Map<number, string>,
  ) {
    const session = await service.getSession({ ...key, events: 'full' });
    const seqs = session?.events.map((event) => event.seq) ?? [];
    expect(seqs).toEqual(seqs.map((_seq, index) => index + 1));
    const byId = new Map(session?.events.map((event) => [event.seq, event.id]));
    for (const [seq, id] of acknowledged) expect(byId.get(seq)).toBe(id);
  }

  /** After recovery: append and loadView succeed on the same instance. */
  async function expectWorks(
    service: PostgresSessionService,
    key: SessionKey,
    acknowledged: Map<number, string>,
  ) {
    const stored = await service.appendEvent({ ...key, event: userTextEvent({ text: 'after' }) });
    acknowledged.set(stored.seq, stored.id);
    const view = await service.loadView(key);
    expect(view.lastSeq).toBe(stored.seq);
    expect(view.tail.at(-1)?.id).toBe(stored.id);
    await expectWhole(service, key, acknowledged);
  }

  it('a cut mid-append is a retryable SessionStoreError; the service recovers', async () => {
    const name = applicationName();
    const service = newService({
      connectionString: withApplicationName(proxy.proxiedUrl(url), name),
    });
    const { key, acknowledged } = await seededSession(service, 3);
    const lock = await lockSession(key);
    const append = pending(service.appendEvent({ ...key, event: userTextEvent({ text: 'cut' }) }));
    await waitUntilBlocked(name);
    proxy.refuse();
    expect(proxy.cutAll()).toBeGreaterThan(0);
    const error = await expectRetryable(append, 'appendEvent', key.sessionId);
    expect(error.message).toContain(`'${key.sessionId}'`);
    await lock.unlock();
    // While the server is unreachable every operation fails the same way, and fast.
    await expectRetryable(service.loadView(key), 'loadView', key.sessionId);
    proxy.accept();
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });

  it('a cut after the take-and-append was sent: retryable at once, never sent again', async () => {
    const name = applicationName();
    const service = newService({
      connectionString: withApplicationName(proxy.proxiedUrl(url), name),
    });
    const { key } = await seededSession(service, 1);
    proxy.hold();
    const sent = proxy.nextHeldRequest();
    const taking = pending(
      service.acquireLeaseAndAppend({
        ...key,
        waitMs: hangLimitMs,
        ttlMs: 1_000,
        event: userTextEvent({ text: 'once' }),
      }),
    );
    await sent;
    // The statement reached the server (it may commit); its answer never comes back.
    proxy.refuse();
    proxy.cutAll();
    const startedAt = Date.now();
    await expectRetryable(taking, 'acquireLease', key.sessionId);
    // Not polled again until the lease's ttl passed (a second append of the same event).
    expect(Date.now() - startedAt).toBeLessThan(1_000);
    proxy.release();
    proxy.accept();
    const reader = newService({ connectionString: url });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const session = await reader.getSession({ ...key, events: 'full' });
    const texts = session?.events.map((event) => event.content?.parts?.[0]?.text);
    // Stored once if the server ran it before the cut, else not at all; never twice.
    expect(texts?.filter((text) => text === 'once').length).toBeLessThanOrEqual(1);
    expect(faults).toEqual([]);
  });

  it('a cut after the append-and-release was sent: retryable, never sent again, no lease left', async () => {
    const name = applicationName();
    const service = newService({
      connectionString: withApplicationName(proxy.proxiedUrl(url), name),
    });
    const { key } = await seededSession(service, 1);
    const lease = await service.acquireLease({ ...key, ttlMs: hangLimitMs });
    proxy.hold();
    const sent = proxy.nextHeldRequest();
    const appending = pending(
      service.appendEventAndReleaseLease({ ...key, event: userTextEvent({ text: 'once' }), lease }),
    );
    await sent;
    // The statement reached the server (it may commit both); its answer never comes back.
    proxy.refuse();
    proxy.cutAll();
    await expectRetryable(appending, 'appendEvent', key.sessionId);
    proxy.release();
    proxy.accept();
    // The holder releases as after a failed append: a no-op when the statement committed.
    await lease.release();
    const reader = newService({ connectionString: url });
    const free = await reader.acquireLease({ ...key, waitMs: 0 });
    await free.release();
    const session = await reader.getSession({ ...key, events: 'full' });
    const texts = session?.events.map((event) => event.content?.parts?.[0]?.text);
    expect(texts?.filter((text) => text === 'once').length).toBeLessThanOrEqual(1);
    expect(faults).toEqual([]);
  });

  it('a cut mid-compaction is retryable; the checkpoint is unchanged and can be stored', async () => {
    const name = applicationName();
    const service = newService({
      connectionString: withApplicationName(proxy.proxiedUrl(url), name),
    });
    const { key, acknowledged } = await seededSession(service, 4);
    const lock = await lockSession(key);
    const compaction = pending(
      service.appendCompaction({
        ...key,
        event: compactionEvent({ startSeq: 1, endSeq: 3, text: 'summary' }),
        expectedCheckpointSeq: null,
      }),
    );
    await waitUntilBlocked(name);
    proxy.refuse();
    proxy.cutAll();
    await expectRetryable(compaction, 'appendCompaction', key.sessionId);
    await lock.unlock();
    proxy.accept();
    expect((await service.loadView(key)).checkpoint).toBe(undefined);
    const stored = await service.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 3, text: 'summary' }),
      expectedCheckpointSeq: null,
    });
    acknowledged.set(stored.seq, stored.id);
    expect((await service.loadView(key)).checkpoint?.seq).toBe(stored.seq);
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });

  it('an idle connection cut in a pool passed without an error listener is logged, not thrown', async () => {
    const pool = new pg.Pool({ connectionString: proxy.proxiedUrl(url), max: 1 });
    const warnings: string[] = [];
    const service = newService({ pool, warnings });
    const { key, acknowledged } = await seededSession(service, 2);
    expect(pool.idleCount).toBe(1);
    const lost = new Promise<void>((resolve) => pool.once('error', () => resolve()));
    proxy.cutAll();
    await lost;
    expect(warnings).toEqual(['PostgreSQL idle connection lost']);
    await expectWorks(service, key, acknowledged);
    await service.close();
    expect(pool.listenerCount('error')).toBe(0); // close() takes its listener off your pool
    await pool.end();
    expect(faults).toEqual([]);
  });

  it('pg_terminate_backend during a loop of appends: only retryable errors, nothing lost', async () => {
    const name = applicationName();
    const service = newService({ connectionString: withApplicationName(url, name) });
    const { key, acknowledged } = await seededSession(service, 1);
    const terminate = () =>
      fixture.pool.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
    // A Runner-like loop: append, and on a retryable store error try the same turn again.
    const errors: SessionStoreError[] = [];
    const killsAt = new Set([3, 8, 13]);
    const kills: Promise<unknown>[] = [];
    for (let turn = 0; turn < 16; turn++) {
      for (;;) {
        try {
          const stored = await service.appendEvent({
            ...key,
            event: userTextEvent({ text: `turn ${turn}` }),
          });
          acknowledged.set(stored.seq, stored.id);
          break;
        } catch (error) {
          if (!SessionStoreError.isInstance(error) || !error.retryable) throw error;
          errors.push(error);
        }
      }
      // Not awaited: the termination lands while the next appends run.
      if (killsAt.has(turn)) kills.push(terminate());
    }
    await Promise.all(kills);
    // And once for certain mid-transaction: the backend waits on a row lock when it is killed.
    const lock = await lockSession(key);
    const append = pending(
      service.appendEvent({ ...key, event: userTextEvent({ text: 'killed' }) }),
    );
    await waitUntilBlocked(name);
    await terminate();
    const error = await expectRetryable(append, 'appendEvent', key.sessionId);
    expect(error.message).toContain('terminating connection');
    await lock.unlock();
    for (const caught of errors) expect(caught.message).toContain('appendEvent');
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });

  it('a server that stops answering: queryTimeoutMs ends the statement, retryable', async () => {
    // Generous: every statement before the hold must answer within it, however loaded the host.
    const service = newService({ connectionString: proxy.proxiedUrl(url), queryTimeoutMs: 5000 });
    const { key, acknowledged } = await seededSession(service, 1);
    proxy.hold();
    const error = await expectRetryable(
      service.appendEvent({ ...key, event: userTextEvent({ text: 'unanswered' }) }),
      'appendEvent',
      key.sessionId,
    );
    expect(error.message).toContain('queryTimeoutMs = 5000 ms');
    proxy.release();
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });

  it('no connection in connectionTimeoutMs is a retryable error', async () => {
    const service = newService({
      connectionString: proxy.proxiedUrl(url),
      connectionTimeoutMs: 5000,
    });
    const { key, acknowledged } = await seededSession(service, 1);
    // The pool must open a new connection, and the server stays silent.
    const lost = new Promise<void>((resolve) => {
      warned = resolve;
    });
    proxy.cutAll();
    await lost;
    proxy.hold();
    const error = await expectRetryable(service.loadView(key), 'loadView', key.sessionId);
    expect(error.message).toMatch(
      /connectionTimeoutMs = 5000 ms|timeout exceeded when trying to connect|terminated due to connection timeout/,
    );
    proxy.release();
    proxy.cutAll();
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });

  it("the caller's signal ends a wait on a silent server at once", async () => {
    const service = newService({ connectionString: proxy.proxiedUrl(url), queryTimeoutMs: 0 });
    const { key, acknowledged } = await seededSession(service, 1);
    proxy.hold();
    const controller = new AbortController();
    const sent = proxy.nextHeldRequest();
    const load = service.loadView({ ...key, signal: controller.signal });
    await sent;
    controller.abort();
    const error = await load.catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('AbortError');
    proxy.release();
    await expectWorks(service, key, acknowledged);
    expect(faults).toEqual([]);
  });
});
