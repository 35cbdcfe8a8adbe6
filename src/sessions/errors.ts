import { OrreryError } from '../events/errors.js';

const notFoundMarker = 'orrery.error.SessionNotFoundError';
const notFoundSymbol = Symbol.for(notFoundMarker);

export class SessionNotFoundError extends OrreryError {
  protected readonly [notFoundSymbol] = true;
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;

  constructor(options: { appName: string; userId: string; sessionId: string }) {
    super({
      name: 'SessionNotFoundError',
      message: `Session '${options.sessionId}' not found for app '${options.appName}' and user '${options.userId}'`,
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

  constructor(options: { message: string; sessionId?: string; seq?: number; cause?: unknown }) {
    super({ name: 'SessionStoreError', message: options.message, cause: options.cause });
    this.sessionId = options.sessionId;
    this.seq = options.seq;
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
