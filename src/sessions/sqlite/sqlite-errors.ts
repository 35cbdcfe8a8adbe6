/**
 * better-sqlite3's `SqliteError` as orrery's typed errors, so no raw driver error leaves the
 * store: a busy or locked database is a retryable `SessionStoreError`, corruption and a full disk
 * are not, a duplicate session id is a `SessionAlreadyExistsError`.
 */
import { OrreryError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { SessionAlreadyExistsError, SessionStoreError } from '../errors.js';

/** The SQLite result code (`SQLITE_BUSY`, `SQLITE_CORRUPT_VTAB`...) of a driver error. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/** Another connection holds the lock: trying again later may succeed. */
export function isBusyError(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function describe(code: string): { what: string; retryable: boolean } {
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return { what: 'the database is locked by another connection', retryable: true };
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return { what: 'the database file is corrupt', retryable: false };
  }
  if (code === 'SQLITE_FULL') return { what: 'the disk is full', retryable: false };
  if (code.startsWith('SQLITE_READONLY')) {
    return { what: 'the database is read-only', retryable: false };
  }
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return { what: 'a constraint was violated', retryable: false };
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN')) {
    return { what: 'an I/O error occurred', retryable: false };
  }
  return { what: 'SQLite failed', retryable: false };
}

/**
 * `error` as a typed orrery error: orrery's own errors and aborts pass through; a driver error
 * becomes a `SessionStoreError` (or `SessionAlreadyExistsError` for a duplicate session key when
 * `creating` is set) naming the operation and the session.
 */
export function toSqliteStoreError(
  error: unknown,
  options: { operation: string; key?: Partial<SessionKey>; creating?: boolean },
): unknown {
  if (OrreryError.isInstance(error)) return error;
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const key = options.key;
  if (
    options.creating &&
    (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') &&
    key?.appName !== undefined &&
    key.userId !== undefined &&
    key.sessionId !== undefined
  ) {
    return new SessionAlreadyExistsError({
      appName: key.appName,
      userId: key.userId,
      sessionId: key.sessionId,
      cause: error,
    });
  }
  const { what, retryable } = describe(code);
  const session = key?.sessionId === undefined ? '' : ` of session '${key.sessionId}'`;
  return new SessionStoreError({
    message: `SQLite ${options.operation}${session} failed: ${what} (${code}: ${(error as Error).message})`,
    sessionId: key?.sessionId,
    retryable,
    cause: error,
  });
}
