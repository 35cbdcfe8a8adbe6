/** Session keys as SQL parameters, and driver errors as orrery's typed errors. */
import type { SessionKey } from '../../events/types.js';
import { assertValidSessionKey } from '../store-helpers.js';
import { toStoreError } from './pg-errors.js';

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

/**
 * Driver errors become `SessionStoreError`s naming the session (`retryable` for a lost
 * connection); orrery's own pass through. `toStoreError` also names the operation.
 */
export function wrapError(error: unknown, key: SessionKey, operation = 'query'): unknown {
  return toStoreError({ error, operation, key });
}
