/**
 * `GET /inspector/api/sessions?app=&user=&limit=`: sessions across apps and users, newest first,
 * within what the token may see. Uses the store's optional `listAllSessions`; a store without it
 * is listed user by user in one app (`partial: true`).
 */
import type { Hono } from 'hono';
import { sessionKeyString } from '../../runtime/turn/runner-telemetry.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionSummary } from '../../sessions/session-service.js';
import { mayActAs, type Principal } from '../auth.js';
import { integerQuery } from '../integer-query.js';
import type { ServerEnv } from '../server-env.js';
import {
  DEFAULT_SESSIONS_LIMIT,
  INSPECTOR_API_PREFIX,
  MAX_SESSIONS_LIMIT,
  type SessionRow,
  type SessionsResponse,
} from './api-types.js';
import type { InspectorDeps } from './inspector-deps.js';
import { loadNextRequestView } from './next-request-view.js';
import { rememberRecent } from './remember-recent.js';

/** The most rows read to fill the app and user filters. */
const FILTER_ROWS = 1000;
/** Next-request views loaded at once. */
const VIEW_CONCURRENCY = 8;
/** Sessions whose view tokens are remembered. */
const CACHED_VIEWS = 1000;

type Overview = SessionSummary & { compactionCount?: number };

/** The users to list: the `user` query if the token may see it, else the token's users. */
function usersToList(principal: Principal, user: string | undefined): string[] | undefined {
  if (user !== undefined) return mayActAs(principal, user) ? [user] : [];
  return principal.userIds === 'any' ? undefined : [...principal.userIds];
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * View tokens by session, valid while its event count and last update are those it was counted
 * at: a list reload loads only the views of sessions that changed.
 */
class ViewTokensCache {
  private readonly known = new Map<
    string,
    { eventCount: number; lastUpdateTime: number; tokens: number }
  >();

  get(row: Overview): number | undefined {
    const known = this.known.get(sessionKeyString(row));
    return known?.eventCount === row.eventCount && known.lastUpdateTime === row.lastUpdateTime
      ? known.tokens
      : undefined;
  }

  set(row: Overview, tokens: number): void {
    const { eventCount, lastUpdateTime } = row;
    rememberRecent(
      this.known,
      sessionKeyString(row),
      { eventCount, lastUpdateTime, tokens },
      CACHED_VIEWS,
    );
  }
}

export function registerSessionsRoute(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const { sessionService } = deps;
  const viewTokens = new ViewTokensCache();

  /** Newest first, and whether the listing is only the fallback's. */
  const list = async (options: {
    principal: Principal;
    appName?: string;
    user?: string;
    limit: number;
    signal: AbortSignal;
  }): Promise<{ rows: Overview[]; partial: boolean }> => {
    const userIds = usersToList(options.principal, options.user);
    if (userIds?.length === 0) return { rows: [], partial: false };
    // An optional store capability: without it, user by user in one app.
    if (sessionService.listAllSessions) {
      const rows = await sessionService.listAllSessions({
        appName: options.appName,
        userIds,
        limit: options.limit,
        signal: options.signal,
      });
      return { rows, partial: false };
    }
    const appName = options.appName ?? deps.runner.appName;
    const rows: Overview[] = [];
    for (const userId of userIds ?? []) {
      rows.push(
        ...(await sessionService.listSessions({ appName, userId, signal: options.signal })),
      );
    }
    rows.sort((left, right) => right.lastUpdateTime - left.lastUpdateTime);
    return { rows: rows.slice(0, options.limit), partial: true };
  };

  app.get(`${INSPECTOR_API_PREFIX}/sessions`, async (context) => {
    const appName = context.req.query('app') || undefined;
    const user = context.req.query('user') || undefined;
    const limit =
      integerQuery({
        value: context.req.query('limit'),
        name: 'limit',
        minimum: 1,
        maximum: MAX_SESSIONS_LIMIT,
      }) ?? DEFAULT_SESSIONS_LIMIT;
    const signal = context.req.raw.signal;
    const principal = context.get('principal');
    const listed = await list({ principal, appName, user, limit, signal });
    // The filters offer every app and user the token may see, not only the listed ones.
    const filters =
      (appName !== undefined || user !== undefined || listed.rows.length === limit) &&
      !listed.partial
        ? (await list({ principal, limit: FILTER_ROWS, signal })).rows
        : listed.rows;
    const rows = await mapLimited(listed.rows, VIEW_CONCURRENCY, async (row) => {
      const known = viewTokens.get(row);
      if (known !== undefined) return toRow(row, known);
      try {
        const view = await loadNextRequestView({
          sessionService,
          agent: deps.runner.agent,
          key: row,
          signal,
        });
        viewTokens.set(row, view.tokens);
        return toRow(row, view.tokens);
      } catch (error) {
        // Deleted since it was listed.
        if (SessionNotFoundError.isInstance(error)) return undefined;
        throw error;
      }
    });
    const body: SessionsResponse = {
      sessions: rows.filter((row): row is SessionRow => row !== undefined),
      apps: [...new Set([...filters, ...listed.rows].map((row) => row.appName))].sort(),
      users: [...new Set([...filters, ...listed.rows].map((row) => row.userId))].sort(),
      ...(listed.partial ? { partial: true as const } : {}),
    };
    return context.json(body);
  });
}

function toRow(overview: Overview, viewTokens: number): SessionRow {
  return {
    appName: overview.appName,
    userId: overview.userId,
    sessionId: overview.sessionId,
    eventCount: overview.eventCount,
    compactionCount: overview.compactionCount ?? null,
    lastUpdateTime: overview.lastUpdateTime,
    viewTokens,
  };
}
