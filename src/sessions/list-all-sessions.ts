/**
 * `listAllSessions` options checked once for every store (docs/architecture.md, Storage): the
 * same bad value is the same `InvalidArgumentError` whichever store runs it.
 */
import { InvalidArgumentError } from '../events/errors.js';
import { compareSessionKeys } from './compare-session-keys.js';
import type { ListAllSessionsOptions, SessionOverview } from './session-service.js';
import { assertValidSessionKey } from './store-helpers.js';

/** Default `limit` of `listAllSessions`. */
export const DEFAULT_LIST_ALL_SESSIONS_LIMIT = 50;
/** Largest `limit` of `listAllSessions`. */
export const MAX_LIST_ALL_SESSIONS_LIMIT = 1000;

export interface ResolvedListAllSessions {
  appName?: string;
  /** `undefined`: every user. */
  userIds?: string[];
  limit: number;
}

/** Checks the options (`InvalidArgumentError` naming the field) and applies the default limit. */
export function resolveListAllSessionsOptions(
  options: ListAllSessionsOptions,
): ResolvedListAllSessions {
  options.signal?.throwIfAborted();
  const limit = options.limit ?? DEFAULT_LIST_ALL_SESSIONS_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_ALL_SESSIONS_LIMIT) {
    throw new InvalidArgumentError({
      argument: 'limit',
      message: `must be an integer from 1 to ${MAX_LIST_ALL_SESSIONS_LIMIT}, got ${options.limit}`,
      value: options.limit,
    });
  }
  // The key rules of every other call, with placeholders for the parts not given.
  if (options.appName !== undefined) {
    assertValidSessionKey({ appName: options.appName, userId: '-', sessionId: '-' });
  }
  let userIds: string[] | undefined;
  if (options.userIds !== undefined) {
    if (!Array.isArray(options.userIds)) {
      throw new InvalidArgumentError({
        argument: 'userIds',
        message: `must be an array of user ids, got ${JSON.stringify(options.userIds)}`,
        value: options.userIds,
      });
    }
    userIds = [...new Set(options.userIds)];
    for (const userId of userIds) assertValidSessionKey({ appName: '-', userId, sessionId: '-' });
  }
  return { appName: options.appName, userIds, limit };
}

/** The in-memory listing order: newest `lastUpdateTime` first, ties by app, user, session id. */
export function compareOverviews(first: SessionOverview, second: SessionOverview): number {
  return second.lastUpdateTime - first.lastUpdateTime || compareSessionKeys(first, second);
}
