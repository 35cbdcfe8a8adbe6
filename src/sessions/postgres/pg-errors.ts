/**
 * Driver and socket errors as orrery's typed errors: which ones a caller may retry, and
 * messages that name the operation and session but never a password.
 */

import { InvalidEventError, OrreryError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { errorMessage } from '../../util/error-message.js';
import { SessionStoreError } from '../errors.js';

/** Node socket error codes of a connection that broke or never opened. */
const connectionErrorCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs after which the same operation may succeed: the server is shutting down or
 * starting (57P01-57P03), too many connections (53300), and the transaction was rolled back
 * by a serialization failure or deadlock (40001, 40P01) or a statement timeout (57014).
 */
const retryableSqlStates = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01', '57014']);

/** Messages pg and pg-pool use for a lost, unusable or never-opened connection. */
const connectionLostMessages = [
  'Connection terminated',
  'is not queryable',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Connection ended',
];

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The connection is gone or could not be opened: the pool must discard the client, and no
 * further statement (not even ROLLBACK) can run on it.
 */
export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  if (code !== undefined && connectionErrorCodes.has(code)) return true;
  if (code?.startsWith('08')) return true; // SQLSTATE class 08: connection exception
  if (code === '57P01' || code === '57P02' || code === '57P03') return true;
  const message = errorMessage(error);
  return connectionLostMessages.some((fragment) => message.includes(fragment));
}

/** Trying the same operation again may succeed; a data or constraint error never will. */
export function isRetryableError(error: unknown): boolean {
  if (SessionStoreError.isInstance(error)) return error.retryable;
  if (isConnectionError(error)) return true;
  const code = errorCode(error);
  return code !== undefined && retryableSqlStates.has(code);
}

/**
 * Text with every database URL's password masked: `postgres://app:***@db/orrery`, also
 * `?password=***`. The same rule as the CLI's `redact`, for free text (it stops at spaces).
 */
export function redactConnectionString(text: string): string {
  // Up to the authority's last `@`: a password may hold an `@` of its own.
  return text
    .replace(/(\/\/[^:/@\s]*:)[^/?#\s]*@/g, '$1***@')
    .replace(/([?&]password=)[^&\s]*/gi, '$1***');
}

/**
 * The password of a connection string (as written and percent-decoded), to take out of any
 * message. Short ones are left: replacing every `a` in a message would hide more than it saves.
 */
export function passwordsOf(connectionString: string | undefined, password?: unknown): string[] {
  const found: string[] = [];
  if (typeof password === 'string') found.push(password);
  const written = [
    connectionString?.match(/\/\/[^:/@\s]*:([^/?#\s]*)@/)?.[1],
    connectionString?.match(/[?&]password=([^&#\s]*)/i)?.[1],
  ];
  for (const secret of written) {
    if (!secret) continue;
    found.push(secret);
    try {
      found.push(decodeURIComponent(secret));
    } catch {
      // not percent-encoded: the written form is enough
    }
  }
  return [...new Set(found)].filter((secret) => secret.length >= 3);
}

/** The passwords a pool connects with (its `connectionString` and `password` options). */
export function poolSecrets(pool: object): string[] {
  const options = (pool as { options?: { connectionString?: unknown; password?: unknown } })
    .options;
  const url = typeof options?.connectionString === 'string' ? options.connectionString : undefined;
  return passwordsOf(url, options?.password);
}

/** `text` with connection strings' passwords and the given secrets replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = redactConnectionString(text);
  for (const secret of secrets) redacted = redacted.replaceAll(secret, '***');
  return redacted;
}

export interface ToStoreErrorOptions {
  error: unknown;
  /** The public method, e.g. `appendEvent`. */
  operation: string;
  /** The session (or app and user, with an empty `sessionId`) the operation was for. */
  key?: SessionKey;
  /** Passwords to keep out of the message. */
  secrets?: readonly string[];
}

/**
 * Driver errors become `SessionStoreError`s naming operation and session, `retryable` for a
 * lost connection; orrery's own errors and aborts pass through unchanged.
 */
export function toStoreError(options: ToStoreErrorOptions): unknown {
  const { error, key } = options;
  if (OrreryError.isInstance(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const secrets = options.secrets ?? [];
  const message = redactSecrets(errorMessage(error), secrets);
  if (errorCode(error) === '22P05') {
    return new InvalidEventError({
      path: 'event',
      message: `PostgreSQL jsonb cannot store this event (NUL character \\u0000 in a string): ${message}`,
      cause: error,
    });
  }
  const retryable = isRetryableError(error);
  return new SessionStoreError({
    message: `PostgreSQL ${options.operation} failed${describeKey(key)}: ${message}${retryable ? ' (retryable)' : ''}`,
    sessionId: key?.sessionId || undefined,
    retryable,
    cause: error,
  });
}

function describeKey(key: SessionKey | undefined): string {
  if (!key) return '';
  if (!key.sessionId) return ` for app '${key.appName}', user '${key.userId}'`;
  return ` in session '${key.sessionId}' (app '${key.appName}', user '${key.userId}')`;
}
