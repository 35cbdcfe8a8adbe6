/**
 * One pooled connection for the length of one store operation, guarded so that a lost
 * connection is an error of that operation and never an unhandled 'error' event: an 'error'
 * listener for the whole checkout, a deadline on every statement, the caller's AbortSignal
 * honoured at any point, and a broken client handed back with `release(error)` so the pool
 * discards it instead of lending it again.
 */
import type { Pool, PoolClient } from 'pg';
import { raceAbort } from '../../util/abort.js';
import { isConnectionError } from './pg-errors.js';

/** Default deadline of one statement (`queryTimeoutMs`). */
export const defaultQueryTimeoutMs = 30_000;
/** Default deadline for getting a connection (`connectionTimeoutMs`). */
export const defaultConnectionTimeoutMs = 10_000;

export interface CheckoutOptions {
  pool: Pool;
  signal?: AbortSignal;
  /** Deadline of each statement in ms; 0 disables it. */
  queryTimeoutMs: number;
  /** Deadline for getting a connection from the pool in ms; 0 disables it. */
  connectionTimeoutMs: number;
}

/** A statement or a connection attempt that got no answer in time. Retryable (`ETIMEDOUT`). */
export class PostgresTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(what: string, option: string, timeoutMs: number) {
    super(`${what} got no answer within ${option} = ${timeoutMs} ms; the connection was closed`);
    this.name = 'PostgresTimeoutError';
  }
}

/**
 * Runs `work` on a pooled client. Throws the driver's error, the signal's reason, or a
 * `PostgresTimeoutError`; callers map them with `toStoreError`.
 */
export async function withClient<T>(
  options: CheckoutOptions,
  work: (client: PoolClient, discard: (reason: unknown) => void) => Promise<T>,
): Promise<T> {
  const client = await acquire(options);
  let lost: unknown; // the connection broke: the client must not go back to the pool
  let interrupted: unknown; // why orrery closed the connection itself (abort, timeout)
  const onClientError = (error: Error) => {
    lost ??= error;
  };
  const interrupt = (reason: unknown) => {
    if (interrupted !== undefined) return;
    interrupted = reason;
    destroyConnection(client);
  };
  const onAbort = () => interrupt(options.signal?.reason);
  client.on('error', onClientError);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort(); // aborted while the connection was being handed over
  try {
    return await work(guardStatements(client, options.queryTimeoutMs, interrupt), (reason) => {
      lost ??= reason;
    });
  } catch (error) {
    if (lost === undefined && isConnectionError(error)) lost = error;
    throw interrupted ?? error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    const broken = interrupted ?? lost;
    client.release(broken === undefined ? undefined : asError(broken));
    // After release the pool's own idle listener is attached: no moment without one.
    client.removeListener('error', onClientError);
  }
}

/** `withClient` inside BEGIN / COMMIT; ROLLBACK on failure unless the connection is gone. */
export function withTransaction<T>(
  options: CheckoutOptions,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return withClient(options, async (client, discard) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (!isConnectionError(error)) {
        // A failed ROLLBACK leaves the transaction state unknown: the client is discarded.
        await client.query('ROLLBACK').catch(discard);
      }
      throw error;
    }
  });
}

/** `pool.connect()` bounded by the signal and the connection deadline. */
async function acquire(options: CheckoutOptions): Promise<PoolClient> {
  options.signal?.throwIfAborted();
  const { pool } = options;
  // An idle client is handed over on the next tick: no deadline to arm, no abort to race.
  if (pool.idleCount > 0 && pool.waitingCount === 0) {
    const client = await pool.connect();
    if (options.signal?.aborted) {
      client.release();
      throw options.signal.reason;
    }
    return client;
  }
  const connecting = pool.connect();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeoutMs = options.connectionTimeoutMs;
  const deadline = new Promise<never>((_resolve, reject) => {
    if (timeoutMs > 0) {
      timer = setTimeout(
        () => reject(new PostgresTimeoutError('Connecting', 'connectionTimeoutMs', timeoutMs)),
        timeoutMs,
      );
    }
  });
  try {
    return await raceAbort(Promise.race([connecting, deadline]), options.signal);
  } catch (error) {
    // A client that arrives after the caller gave up goes straight back to the pool.
    connecting.then(
      (client) => client.release(),
      () => {},
    );
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The client with a deadline on each `query`; past it the connection is closed. */
function guardStatements(
  client: PoolClient,
  timeoutMs: number,
  onTimeout: (error: PostgresTimeoutError) => void,
): PoolClient {
  if (timeoutMs <= 0) return client;
  const query = (...args: unknown[]) => {
    const timer = setTimeout(
      () => onTimeout(new PostgresTimeoutError('A statement', 'queryTimeoutMs', timeoutMs)),
      timeoutMs,
    );
    const pending = (client.query as (...values: unknown[]) => unknown)(...args);
    return Promise.resolve(pending).finally(() => clearTimeout(timer));
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Closes the socket at once: the running statement fails, the server rolls the transaction
 * back, and pg reports the end through the checkout's 'error' listener.
 */
function destroyConnection(client: PoolClient): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy?: () => void } } })
    .connection?.stream;
  if (typeof stream?.destroy === 'function') {
    stream.destroy();
    return;
  }
  client.end().catch(() => {});
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
