/**
 * What every session-lease implementation shares: option defaults and checks, an abortable
 * wait, and a held lease's life (renewal timer, loss, idempotent release). The stores supply
 * only how to take, renew and drop their lease record.
 */
import { InvalidArgumentError } from '../events/errors.js';
import type { SessionKey } from '../events/types.js';
import { abortableDelay } from '../util/abort.js';
import { SessionLeaseLostError, SessionStoreError } from './errors.js';
import type { AcquireLeaseOptions, SessionLease } from './session-service.js';
import { assertValidSessionKey } from './store-helpers.js';

/** How long `acquireLease` waits for another holder by default, in ms. */
export const DEFAULT_LEASE_WAIT_MS = 30_000;
/** How long a lease outlives a holder that stopped renewing it, by default, in ms. */
export const DEFAULT_LEASE_TTL_MS = 30_000;
/** The shortest `ttlMs`: renewals every third of it must stay meaningful. */
export const MIN_LEASE_TTL_MS = 10;

export interface ResolvedLeaseOptions {
  key: SessionKey;
  waitMs: number;
  ttlMs: number;
  renew: boolean;
  signal?: AbortSignal;
}

function checkMilliseconds(name: string, value: unknown, minimum: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    throw new InvalidArgumentError({
      argument: name,
      message: `must be an integer >= ${minimum} (milliseconds), got ${String(value)}`,
      value,
    });
  }
}

/** Defaults applied and every option checked (`InvalidArgumentError` naming the bad one). */
export function resolveLeaseOptions(options: AcquireLeaseOptions): ResolvedLeaseOptions {
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  assertValidSessionKey(key);
  const waitMs = options.waitMs ?? DEFAULT_LEASE_WAIT_MS;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  checkMilliseconds('waitMs', waitMs, 0);
  checkMilliseconds('ttlMs', ttlMs, MIN_LEASE_TTL_MS);
  if (options.renew !== undefined && typeof options.renew !== 'boolean') {
    throw new InvalidArgumentError({
      argument: 'renew',
      message: `must be true or false, got ${String(options.renew)}`,
      value: options.renew,
    });
  }
  options.signal?.throwIfAborted();
  return { key, waitMs, ttlMs, renew: options.renew ?? true, signal: options.signal };
}

/** What a store does to its lease record; `leaseId` is the holder. */
export interface LeaseRecordOperations {
  /** Takes the lease if nobody holds it or the holder's lease expired; `true` when taken. */
  tryAcquire(leaseId: string, ttlMs: number): Promise<boolean>;
  /** Extends the lease by `ttlMs` if `leaseId` still holds it; `false` when it does not. */
  renew(leaseId: string, ttlMs: number): Promise<boolean>;
  /** Drops the lease if `leaseId` still holds it (never another holder's). */
  release(leaseId: string): Promise<void>;
}

const FIRST_POLL_MS = 10;
const MAX_POLL_MS = 250;

/**
 * Tries `tryAcquire` until it succeeds, waiting between attempts with a growing, jittered
 * backoff (no busy wait). Throws `SessionBusyError` (via `busy`) once `waitMs` has passed, and
 * the signal's reason at once when it aborts. A retryable `SessionStoreError` (a lost connection)
 * is tried again too; if the last attempt before the deadline failed so, that error is thrown.
 */
export async function pollForLease(options: {
  attempt: () => Promise<boolean>;
  waitMs: number;
  signal?: AbortSignal;
  busy: () => Error;
}): Promise<void> {
  const deadline = Date.now() + options.waitMs;
  let delay = FIRST_POLL_MS;
  for (;;) {
    options.signal?.throwIfAborted();
    let failure: SessionStoreError | undefined;
    try {
      if (await options.attempt()) return;
    } catch (error) {
      if (!SessionStoreError.isInstance(error) || !error.retryable) throw error;
      failure = error;
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw failure ?? options.busy();
    // Jitter: waiters in different processes do not poll in lockstep.
    const jittered = Math.ceil(delay * (0.5 + Math.random()));
    await abortableDelay(Math.min(jittered, remaining), options.signal);
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

export interface HeldLeaseOptions {
  key: SessionKey;
  leaseId: string;
  ttlMs: number;
  renew: boolean;
  /** Confirms and extends the lease; `false` when it was lost. Absent: nothing can take it. */
  renewRecord?: () => Promise<boolean>;
  releaseRecord: () => Promise<void>;
  /**
   * What is left of `releaseRecord` once a store statement has freed the record itself (the
   * local gate): set, a store may release the lease along with its own write
   * (`releaseLeaseWith`).
   */
  releaseLocal?: () => Promise<void>;
  /** Called once when the lease is lost (after its signal aborts). */
  onLost?: () => void;
}

/**
 * A held lease: renewed every `ttlMs / 3` on an unref'd timer (it never keeps a process alive),
 * its signal aborted with `SessionLeaseLostError` when a renewal finds it gone or cannot reach
 * the store before it would expire; without renewal it lapses at `ttlMs`.
 */
export function startHeldLease(options: HeldLeaseOptions): SessionLease {
  const { key, leaseId, ttlMs } = options;
  const controller = new AbortController();
  let released = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let releasing: Promise<void> | undefined;

  const lose = (reason: string, cause?: unknown) => {
    if (released || controller.signal.aborted) return;
    if (timer) clearTimeout(timer);
    controller.abort(new SessionLeaseLostError({ ...key, leaseId, reason, cause }));
    options.onLost?.();
  };

  const schedule = (ms: number, run: () => void) => {
    timer = setTimeout(run, ms);
    timer.unref?.();
  };

  if (!options.renew) {
    schedule(ttlMs, () => lose(`it was not renewed and its ${ttlMs} ms ttl passed`));
  } else if (options.renewRecord) {
    const renewRecord = options.renewRecord;
    // Until a renewal confirms it, the lease is good for ttl from when it was taken.
    let validUntil = Date.now() + ttlMs;
    const renewal = async () => {
      const startedAt = Date.now();
      try {
        const held = await renewRecord();
        if (released) return;
        // A statement releasing the record is in flight: its result says whether it was held.
        if (!held && folding === 0) {
          lose('another holder took it after it expired');
          return;
        }
        validUntil = startedAt + ttlMs;
      } catch (error) {
        if (released) return;
        if (Date.now() >= validUntil) {
          lose(`it could not be renewed before its ${ttlMs} ms ttl passed`, error);
          return;
        }
      }
      if (!released && !controller.signal.aborted)
        schedule(Math.ceil(ttlMs / 3), () => void renewal());
    };
    schedule(Math.ceil(ttlMs / 3), () => void renewal());
  }

  let folding = 0;
  const lease: SessionLease = {
    leaseId,
    signal: controller.signal,
    release() {
      released = true;
      if (timer) clearTimeout(timer);
      releasing ??= options.releaseRecord().catch(() => {
        // Never throws: an unreleased record simply expires after its ttl.
      });
      return releasing;
    },
  };
  const releaseLocal = options.releaseLocal;
  if (releaseLocal) {
    folds.set(lease, {
      begin: () => {
        folding++;
      },
      end: (freed) => {
        folding--;
        if (!freed || released) return;
        released = true;
        if (timer) clearTimeout(timer);
        releasing = releaseLocal().catch(() => {});
      },
    });
  }
  return lease;
}

/** A held lease whose record a store statement may free (`releaseLeaseWith`). */
interface LeaseFold {
  begin(): void;
  /** `freed`: the statement committed and freed the record. */
  end(freed: boolean): void;
}

const folds = new WeakMap<SessionLease, LeaseFold>();

/**
 * Runs `statement`, which frees `lease`'s record with its own write, and marks the lease
 * released when it says it did (`freed`): no statement of its own, the local gate opened.
 * Meanwhile a renewal that finds the record free is no loss. When it throws, or did not free
 * the record (it was no longer held), the lease is as before: its holder releases it.
 * `undefined` (nothing run) for a lease whose record no statement can free (not a record lease).
 */
export async function releaseLeaseWith<T>(
  lease: SessionLease,
  statement: () => Promise<{ value: T; freed: boolean }>,
): Promise<{ value: T } | undefined> {
  const fold = folds.get(lease);
  if (!fold) return undefined;
  fold.begin();
  let freed = false;
  try {
    const result = await statement();
    freed = result.freed;
    return { value: result.value };
  } finally {
    fold.end(freed);
  }
}
