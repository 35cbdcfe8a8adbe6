/**
 * The PostgreSQL store's connection plumbing: the pool (created lazily, or the caller's), the
 * migration at first use, and every statement run on a guarded connection, its driver errors
 * turned into `SessionStoreError`s naming the operation (docs/architecture.md, Storage).
 */
import type { Pool, PoolClient } from 'pg';
import type { SessionKey } from '../../events/types.js';
import { raceAbort } from '../../util/abort.js';
import { errorMessage } from '../../util/error-message.js';
import { importOptional } from '../../util/import-optional.js';
import { SessionStoreError } from '../errors.js';
import { migrate } from './migrations.js';
import type { PostgresSessionServiceOptions } from './options.js';
import { type CheckoutOptions, withClient, withTransaction } from './pg-checkout.js';
import { passwordsOf, poolSecrets, redactSecrets, toStoreError } from './pg-errors.js';
import { type Statement, withValues } from './queries.js';
import { type BatchedStatement, StatementBatch } from './statement-batch.js';
import type { SynchronousCommit } from './synchronous-commit.js';

export interface PostgresConnectionOptions {
  service: PostgresSessionServiceOptions;
  schema: string;
  queryTimeoutMs: number;
  connectionTimeoutMs: number;
  synchronousCommit?: SynchronousCommit;
  /** Sets `synchronous_commit` ($1) until the end of the open transaction. */
  setCommitModeSql: string;
  /** The turn statements of one event-loop turn share a Query and a commit (statement-batch.ts). */
  groupCommit: boolean;
}

export class PostgresConnection {
  private readonly options: PostgresConnectionOptions;
  private ready?: Promise<Pool>;
  /** `ready`'s pool once migrated: a statement's checkout needs no promise to wait on. */
  private readyPool?: Pool;
  private pool?: Promise<Pool>;
  private readonly batch?: StatementBatch;

  constructor(options: PostgresConnectionOptions) {
    this.options = options;
    if (options.groupCommit) {
      this.batch = new StatementBatch({
        runAlone: (request) => this.queryAlone(request),
        withClient: async (work) =>
          withClient(this.checkoutNow(undefined) ?? (await this.checkout(undefined)), work),
        toError: (error, request) =>
          toStoreError({
            error,
            operation: request.operation,
            key: request.key,
            secrets: this.secrets(),
          }),
      });
    }
  }

  /**
   * The migrated pool. The migration runs once for all callers, bounded by the timeouts; each
   * caller waits for it only as long as its own signal allows.
   */
  connect(signal: AbortSignal | undefined): Promise<Pool> {
    signal?.throwIfAborted();
    if (this.readyPool) return Promise.resolve(this.readyPool);
    if (!this.ready) {
      const ready = (async () => {
        const pool = await this.openPool();
        await migrate({
          pool,
          schema: this.options.schema,
          queryTimeoutMs: this.options.queryTimeoutMs,
          connectionTimeoutMs: this.options.connectionTimeoutMs,
        });
        return pool;
      })().catch((error: unknown) => {
        this.ready = undefined; // let the next call retry (the database may come back)
        throw error;
      });
      this.ready = ready;
      ready.then(
        (pool) => {
          if (this.ready === ready) this.readyPool = pool; // not after a close
        },
        () => {},
      );
    }
    return raceAbort(this.ready, signal);
  }

  /**
   * Ends the pool it created (after the operations in flight); a pool the caller passed is
   * left open and its 'error' listener removed. The next operation opens a new pool.
   */
  async close(): Promise<void> {
    const pending = this.pool;
    this.pool = undefined;
    this.ready = undefined;
    this.readyPool = undefined;
    const pool = await pending?.catch(() => undefined);
    if (!pool) return;
    if (pool === this.options.service.pool) {
      pool.removeListener('error', this.onPoolError);
      if (this.raisedMaxListeners) pool.setMaxListeners(pool.getMaxListeners() - 1);
      this.raisedMaxListeners = false;
      return;
    }
    // The listener stays: ending idle clients may still report errors.
    await pool.end();
  }

  /**
   * One statement, auto-committed, its rows; a named `Statement` runs as a prepared one.
   * `batched`: it may share a Query and a commit with the other sessions' statements of this
   * event-loop turn (`groupCommit`; only a statement that is its own transaction).
   */
  async query<Row extends object>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    text: string | Statement,
    values: unknown[],
    options: { operation?: string; batched?: boolean } = {},
  ): Promise<Row[]> {
    const statement = typeof text === 'string' ? { text } : text;
    const request = { key, signal, statement, values, operation: options.operation ?? 'query' };
    if (options.batched && this.batch) return this.batch.run<Row>(request);
    return this.queryAlone<Row>(request);
  }

  private queryAlone<Row extends object>(request: BatchedStatement): Promise<Row[]> {
    const config = withValues(request.statement, request.values);
    return this.withConnection(
      request.key,
      request.signal,
      async (client) => (await client.query<Row>(config)).rows,
      request.operation,
    );
  }

  /** `work` on one guarded connection, auto-committed; errors as in `transaction`. */
  async withConnection<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    work: (client: PoolClient) => Promise<T>,
    operation: string,
  ): Promise<T> {
    try {
      return await withClient(this.checkoutNow(signal) ?? (await this.checkout(signal)), work);
    } catch (error) {
      throw toStoreError({ error, operation, key, secrets: this.secrets() });
    }
  }

  /**
   * `work` in one transaction on one guarded connection: a lost connection, a timeout or an
   * abort ends it with the connection discarded; driver errors become `SessionStoreError`s
   * naming `operation` (retryable when the connection was lost).
   */
  async transaction<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    work: (client: PoolClient) => Promise<T>,
    operation = 'transaction',
  ): Promise<T> {
    const commitMode = this.options.synchronousCommit;
    try {
      const checkout = this.checkoutNow(signal) ?? (await this.checkout(signal));
      return await withTransaction(checkout, async (client) => {
        if (commitMode) await client.query(this.options.setCommitModeSql, [commitMode]);
        return work(client);
      });
    } catch (error) {
      throw toStoreError({ error, operation, key, secrets: this.secrets() });
    }
  }

  /**
   * A connection dropped while idle in the pool (server restart, `pg_terminate_backend`, a
   * proxy timeout) is reported here, never as an unhandled 'error' event; the pool has
   * discarded it and the next operation opens a new one.
   */
  /** This store raised a passed pool's listener limit by one (lowered again by `close`). */
  private raisedMaxListeners = false;

  private readonly onPoolError = (error: Error) => {
    this.options.service.logger?.warn(
      { error: redactSecrets(error.message, this.secrets()) },
      'PostgreSQL idle connection lost',
    );
  };

  private secrets(): string[] {
    const service = this.options.service;
    return passwordsOf(service.connectionString).concat(
      service.pool ? poolSecrets(service.pool) : [],
    );
  }

  /** The pool, created once; a passed pool gets the 'error' listener too. */
  private openPool(): Promise<Pool> {
    const service = this.options.service;
    this.pool ??= (async () => {
      if (service.pool) {
        // One listener a store: many stores on one pool (a schema each) are not a leak, so the
        // pool's limit grows with them instead of Node warning at the eleventh.
        const max = service.pool.getMaxListeners();
        this.raisedMaxListeners = max > 0 && service.pool.listenerCount('error') >= max;
        if (this.raisedMaxListeners) service.pool.setMaxListeners(max + 1);
        service.pool.on('error', this.onPoolError);
        return service.pool;
      }
      const { default: pg } = await importOptional({
        packageName: 'pg',
        load: () => import('pg'),
        toError: ({ missing, cause }) =>
          new SessionStoreError({
            message: missing
              ? "PostgresSessionService needs the optional dependency 'pg': npm install pg"
              : `PostgresSessionService could not load 'pg': ${errorMessage(cause)}`,
            cause,
          }),
      });
      const pool = new pg.Pool({
        connectionString: service.connectionString,
        connectionTimeoutMillis: this.options.connectionTimeoutMs,
        // Finds a peer that vanished without closing the socket (no RST) on idle connections.
        keepAlive: true,
      });
      pool.on('error', this.onPoolError);
      return pool;
    })().catch((error: unknown) => {
      this.pool = undefined;
      throw error;
    });
    return this.pool;
  }

  private async checkout(signal: AbortSignal | undefined): Promise<CheckoutOptions> {
    return this.checkoutOf(await this.connect(signal), signal);
  }

  /** The checkout without waiting, once the pool is migrated (withClient checks the signal). */
  private checkoutNow(signal: AbortSignal | undefined): CheckoutOptions | undefined {
    return this.readyPool && this.checkoutOf(this.readyPool, signal);
  }

  private checkoutOf(pool: Pool, signal: AbortSignal | undefined): CheckoutOptions {
    return {
      pool,
      signal,
      queryTimeoutMs: this.options.queryTimeoutMs,
      connectionTimeoutMs: this.options.connectionTimeoutMs,
    };
  }
}
