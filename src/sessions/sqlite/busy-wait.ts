/**
 * Waiting for another connection's lock without blocking the event loop. better-sqlite3 is
 * synchronous, so SQLite's own `busy_timeout` would freeze the whole process (every session, every
 * timer) for as long as it waits. The store sets `busy_timeout = 0` and runs each transaction
 * through `runWhileBusy`: on `SQLITE_BUSY` / `SQLITE_LOCKED` it waits with `setTimeout` (backoff
 * from 1 ms to 50 ms, with jitter so waiters spread out) and tries again, until the deadline
 * (then a retryable `SessionStoreError`) or the caller's `AbortSignal` (at once).
 */
import type { SessionKey } from '../../events/types.js';
import { abortableDelay } from '../../util/abort.js';
import { SessionStoreError } from '../errors.js';
import { isBusyError, toSqliteStoreError } from './sqlite-errors.js';

const FIRST_DELAY_MS = 1;
const MAX_DELAY_MS = 50;

export interface RunWhileBusyOptions {
  /** Named in errors, e.g. `append`. */
  operation: string;
  key?: Partial<SessionKey>;
  /** How long to keep trying while the database is busy, in ms. */
  waitMs: number;
  signal?: AbortSignal;
  /** `createSession`: a duplicate key is a `SessionAlreadyExistsError`. */
  creating?: boolean;
}

/** Runs `work` (a synchronous transaction), retrying it while the database is busy. */
export async function runWhileBusy<T>(work: () => T, options: RunWhileBusyOptions): Promise<T> {
  const started = Date.now();
  let delay = FIRST_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return work();
    } catch (error) {
      if (!isBusyError(error)) throw toSqliteStoreError(error, options);
      await waitWhileBusy({ options, started, attempt, delay, cause: error });
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

/** The first wait after a busy attempt, in ms (then doubled up to `MAX_DELAY_MS`). */
export const FIRST_BUSY_DELAY_MS = FIRST_DELAY_MS;
export const MAX_BUSY_DELAY_MS = MAX_DELAY_MS;

/**
 * The wait after busy attempt `attempt` (`delay` ms, jittered so waiters spread out), or the
 * retryable `SessionStoreError` once `options.waitMs` has passed since `started`; rejects with
 * the signal's reason at once when it aborts.
 */
export async function waitWhileBusy(wait: {
  options: RunWhileBusyOptions;
  started: number;
  attempt: number;
  delay: number;
  cause: unknown;
}): Promise<void> {
  const { options, delay } = wait;
  const waited = Date.now() - wait.started;
  if (waited >= options.waitMs) {
    const session =
      options.key?.sessionId === undefined ? '' : ` of session '${options.key.sessionId}'`;
    throw new SessionStoreError({
      message: `SQLite ${options.operation}${session} gave up after ${waited} ms (${wait.attempt} attempts): the database is locked by another connection`,
      sessionId: options.key?.sessionId,
      retryable: true,
      cause: wait.cause,
    });
  }
  const jittered = delay / 2 + Math.random() * (delay / 2);
  await abortableDelay(Math.min(jittered, options.waitMs - waited), options.signal);
}
