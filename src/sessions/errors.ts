import { OrreryError } from '../events/errors.js';

const notFoundMarker = 'orrery.error.SessionNotFoundError';
const notFoundSymbol = Symbol.for(notFoundMarker);

export class SessionNotFoundError extends OrreryError {
  protected readonly [notFoundSymbol] = true;
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;

  constructor(options: { appName: string; userId: string; sessionId: string; hint?: string }) {
    super({
      name: 'SessionNotFoundError',
      // The hint (what the store holds instead) reads after the fact: "...; did you mean 'ab12'?"
      message: `Session '${options.sessionId}' not found for app '${options.appName}' and user '${options.userId}'${options.hint === undefined ? '' : `; ${options.hint}`}`,
    });
    this.appName = options.appName;
    this.userId = options.userId;
    this.sessionId = options.sessionId;
  }

  static override isInstance(error: unknown): error is SessionNotFoundError {
    return OrreryError.hasMarker(error, notFoundMarker);
  }
}

const conflictMarker = 'orrery.error.CompactionConflictError';
const conflictSymbol = Symbol.for(conflictMarker);

/** Another runner compacted first: the checkpoint moved since this compaction was planned. */
export class CompactionConflictError extends OrreryError {
  protected readonly [conflictSymbol] = true;
  readonly sessionId: string;
  readonly expectedCheckpointSeq: number | null;
  readonly actualCheckpointSeq: number | null;

  constructor(options: {
    sessionId: string;
    expectedCheckpointSeq: number | null;
    actualCheckpointSeq: number | null;
  }) {
    super({
      name: 'CompactionConflictError',
      message: `Compaction conflict in session '${options.sessionId}': expected checkpoint ${options.expectedCheckpointSeq ?? 'none'}, found ${options.actualCheckpointSeq ?? 'none'}`,
    });
    this.sessionId = options.sessionId;
    this.expectedCheckpointSeq = options.expectedCheckpointSeq;
    this.actualCheckpointSeq = options.actualCheckpointSeq;
  }

  static override isInstance(error: unknown): error is CompactionConflictError {
    return OrreryError.hasMarker(error, conflictMarker);
  }
}

const storeMarker = 'orrery.error.SessionStoreError';
const storeSymbol = Symbol.for(storeMarker);

/**
 * The store holds something it cannot read (a corrupted row, a newer schema) or cannot be
 * reached. Names the session and `seq` where it applies.
 */
export class SessionStoreError extends OrreryError {
  protected readonly [storeSymbol] = true;
  readonly sessionId?: string;
  readonly seq?: number;
  /**
   * The operation may succeed if tried again (a lost connection, a server restarting, a busy
   * database). A corrupt row or a constraint violation is not retryable.
   */
  readonly retryable: boolean;

  constructor(options: {
    message: string;
    sessionId?: string;
    seq?: number;
    retryable?: boolean;
    cause?: unknown;
  }) {
    super({ name: 'SessionStoreError', message: options.message, cause: options.cause });
    this.sessionId = options.sessionId;
    this.seq = options.seq;
    this.retryable = options.retryable ?? false;
  }

  static override isInstance(error: unknown): error is SessionStoreError {
    return OrreryError.hasMarker(error, storeMarker);
  }
}

const existsMarker = 'orrery.error.SessionAlreadyExistsError';
const existsSymbol = Symbol.for(existsMarker);

/** `createSession` with a `sessionId` that already exists for that app and user. */
export class SessionAlreadyExistsError extends SessionStoreError {
  protected readonly [existsSymbol] = true;
  readonly appName: string;
  readonly userId: string;

  constructor(options: { appName: string; userId: string; sessionId: string; cause?: unknown }) {
    super({
      message: `Session '${options.sessionId}' already exists for app '${options.appName}' and user '${options.userId}'`,
      sessionId: options.sessionId,
      cause: options.cause,
    });
    this.name = 'SessionAlreadyExistsError';
    this.appName = options.appName;
    this.userId = options.userId;
  }

  static override isInstance(error: unknown): error is SessionAlreadyExistsError {
    return OrreryError.hasMarker(error, existsMarker);
  }
}

const busyMarker = 'orrery.error.SessionBusyError';
const busySymbol = Symbol.for(busyMarker);

/** Another invocation held the session's lease for longer than the caller would wait. */
export class SessionBusyError extends OrreryError {
  protected readonly [busySymbol] = true;
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;
  /** How long the caller waited, in ms. */
  readonly waitedMs: number;

  constructor(options: {
    appName: string;
    userId: string;
    sessionId: string;
    waitedMs: number;
    cause?: unknown;
  }) {
    super({
      name: 'SessionBusyError',
      message: `Session '${options.sessionId}' (app '${options.appName}', user '${options.userId}') is busy: another invocation held it for the ${options.waitedMs} ms this one waited`,
      cause: options.cause,
    });
    this.appName = options.appName;
    this.userId = options.userId;
    this.sessionId = options.sessionId;
    this.waitedMs = options.waitedMs;
  }

  static override isInstance(error: unknown): error is SessionBusyError {
    return OrreryError.hasMarker(error, busyMarker);
  }
}

const leaseLostMarker = 'orrery.error.SessionLeaseLostError';
const leaseLostSymbol = Symbol.for(leaseLostMarker);

/**
 * A held session lease was lost: a renewal found it expired and taken by another holder, or
 * could not reach the store before it expired. The lease's `signal` aborts with this error, and
 * a Runner's invocation on that session stops with it.
 */
export class SessionLeaseLostError extends OrreryError {
  protected readonly [leaseLostSymbol] = true;
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly leaseId: string;

  constructor(options: {
    appName: string;
    userId: string;
    sessionId: string;
    leaseId: string;
    reason: string;
    cause?: unknown;
  }) {
    super({
      name: 'SessionLeaseLostError',
      message: `Lease '${options.leaseId}' on session '${options.sessionId}' (app '${options.appName}', user '${options.userId}') was lost: ${options.reason}`,
      cause: options.cause,
    });
    this.appName = options.appName;
    this.userId = options.userId;
    this.sessionId = options.sessionId;
    this.leaseId = options.leaseId;
  }

  static override isInstance(error: unknown): error is SessionLeaseLostError {
    return OrreryError.hasMarker(error, leaseLostMarker);
  }
}
