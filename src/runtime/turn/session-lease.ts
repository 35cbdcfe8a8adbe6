/**
 * The Runner's side of the session lease: which option it was given, taking the lease for one
 * invocation, and the signal an invocation runs under (the caller's, aborted too when the lease
 * is lost).
 */
import type { NewEvent, Session, SessionKey, Event as StoredEvent } from '../../events/types.js';
import type { SessionLease, SessionService } from '../../sessions/session-service.js';
import { RunnerConfigError } from '../errors.js';

/** `RunnerOptions.sessionLease` when on: how long to wait for the session, how long a lease lives. */
export interface SessionLeaseOptions {
  /** How long a run waits for another invocation on its session, in ms (default 30_000). */
  waitMs?: number;
  /** How long the lease outlives a runner that died, in ms (default 30_000). */
  ttlMs?: number;
}

/** Checks `RunnerOptions.sessionLease` (`RunnerConfigError` naming the field). */
export function checkSessionLeaseOption(value: unknown): SessionLeaseOptions | false {
  if (value === undefined) return {};
  if (value === false) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RunnerConfigError({
      field: 'sessionLease',
      value,
      message: 'expected false or { waitMs?, ttlMs? }',
    });
  }
  const option = value as Record<string, unknown>;
  for (const [name, minimum] of [
    ['waitMs', 0],
    ['ttlMs', 10],
  ] as const) {
    const field = option[name];
    if (field === undefined) continue;
    if (typeof field !== 'number' || !Number.isSafeInteger(field) || field < minimum) {
      throw new RunnerConfigError({
        field: `sessionLease.${name}`,
        value: field,
        message: `expected an integer >= ${minimum} (milliseconds), got ${String(field)}`,
      });
    }
  }
  return { waitMs: option.waitMs as number | undefined, ttlMs: option.ttlMs as number | undefined };
}

/**
 * The session's lease for one invocation, or `undefined` when leases are off or the store has
 * none (the Runner then serializes only its own runs). Throws `SessionBusyError` past `waitMs`.
 */
export async function acquireRunLease(options: {
  sessionService: SessionService;
  key: SessionKey;
  lease: SessionLeaseOptions | false;
  signal?: AbortSignal;
}): Promise<SessionLease | undefined> {
  const { sessionService, lease } = options;
  if (lease === false || !sessionService.acquireLease) return undefined;
  return sessionService.acquireLease({ ...options.key, ...lease, signal: options.signal });
}

/**
 * `acquireRunLease`, with the session read under the lease when the store can do both in one
 * step (`acquireLeaseAndGetSession`: fewer round trips), and `append` (the user's message)
 * appended in that step too when the store can (`acquireLeaseAndAppend`). `read` is absent
 * when the session was not read (the caller reads it); `read.session` is `undefined` when it
 * does not exist. `read.appended` is `append` as stored, when it was: `read.session` then
 * holds it.
 */
export async function acquireRunLeaseAndSession(options: {
  sessionService: SessionService;
  key: SessionKey;
  lease: SessionLeaseOptions | false;
  signal?: AbortSignal;
  /** An event to append once the lease is held, if the store can do it in the same step. */
  append?: NewEvent;
}): Promise<{
  lease?: SessionLease;
  read?: { session: Session | undefined; appended?: StoredEvent };
}> {
  const { sessionService, lease, append } = options;
  const leaseOptions = { ...options.key, ...(lease || {}), signal: options.signal };
  if (lease !== false && append && sessionService.acquireLeaseAndAppend) {
    const leased = await sessionService.acquireLeaseAndAppend({ ...leaseOptions, event: append });
    return { lease: leased.lease, read: { session: leased.session, appended: leased.event } };
  }
  if (lease === false || !sessionService.acquireLeaseAndGetSession) {
    return { lease: await acquireRunLease(options) };
  }
  const leased = await sessionService.acquireLeaseAndGetSession(leaseOptions);
  return { lease: leased.lease, read: { session: leased.session } };
}

/** A signal aborted by either input (with its reason); `dispose` detaches it from both. */
export function eitherSignal(
  first: AbortSignal | undefined,
  second: AbortSignal,
): { signal: AbortSignal; dispose(): void } {
  if (!first) return { signal: second, dispose: () => {} };
  const controller = new AbortController();
  const inputs = [first, second];
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  const dispose = () => {
    for (const input of inputs) input.removeEventListener('abort', onAbort);
  };
  const aborted = inputs.find((input) => input.aborted);
  if (aborted) controller.abort(aborted.reason);
  else for (const input of inputs) input.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose };
}
