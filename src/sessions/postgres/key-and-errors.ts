/** Session keys as SQL parameters, and driver errors as orrery's typed errors. */
import { InvalidEventError, OrreryError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';
import { assertValidSessionKey } from '../store-helpers.js';

export function pickKey(options: SessionKey): SessionKey {
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  validateKey(key);
  return key;
}

export function validateKey(key: SessionKey): void {
  assertValidSessionKey(key);
}

export function keyParams(key: SessionKey): [string, string, string] {
  return [key.appName, key.userId, key.sessionId];
}

/** Driver errors become `SessionStoreError`s naming the session; orrery's own pass through. */
export function wrapError(error: unknown, key: SessionKey): unknown {
  if (OrreryError.isInstance(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  const code = (error as { code?: string }).code;
  if (code === '22P05') {
    return new InvalidEventError({
      path: 'event',
      message: `PostgreSQL jsonb cannot store this event (NUL character \\u0000 in a string): ${(error as Error).message}`,
      cause: error,
    });
  }
  return new SessionStoreError({
    message: `PostgreSQL error in session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): ${(error as Error).message}`,
    sessionId: key.sessionId || undefined,
    cause: error,
  });
}
