/**
 * `GET /apps/:app/users/:user/memory?query=...`: the user's memory across sessions
 * (docs/memory.md#the-server-route), `SessionMemoryService` over the served store, under the
 * user's scope like every session route (a token that may not act as the user gets a 404).
 */
import type { Hono } from 'hono';
import { SessionMemoryService } from '../../sessions/session-memory-service.js';
import { HttpProblem } from '../errors.js';
import { integerQuery } from '../integer-query.js';
import { badRequest } from '../problem.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { checkApp, checkUser } from '../session-access.js';

export const MAX_MEMORY_PAGE = 100;

/** A time bound: epoch seconds, or an ISO 8601 date or time. */
function timeQuery(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() !== '' && Number.isFinite(number)) return number;
  const milliseconds = Date.parse(value);
  if (Number.isNaN(milliseconds)) {
    throw badRequest(
      `${name} must be epoch seconds or an ISO 8601 date, got ${JSON.stringify(value)}`,
      name,
    );
  }
  return milliseconds / 1000;
}

export function registerMemoryRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  const memory = deps.sessionService.searchEvents
    ? new SessionMemoryService({ sessionService: deps.sessionService })
    : undefined;

  app.get('/apps/:app/users/:user/memory', async (context) => {
    const appName = context.req.param('app');
    const userId = context.req.param('user');
    checkApp(deps, appName);
    checkUser(context, userId);
    if (!memory) {
      throw new HttpProblem({
        status: 501,
        slug: 'not-implemented',
        title: 'Not Implemented',
        detail: 'this store cannot search, so it has no memory',
      });
    }
    const query = context.req.query('query');
    if (query === undefined) throw badRequest('query is required', 'query');
    const limit =
      integerQuery({
        value: context.req.query('limit'),
        name: 'limit',
        minimum: 1,
        maximum: MAX_MEMORY_PAGE,
      }) ?? 10;
    const authors = context.req.queries('author');
    const result = await memory.searchMemory({
      appName,
      userId,
      query,
      limit,
      after: timeQuery(context.req.query('after'), 'after'),
      before: timeQuery(context.req.query('before'), 'before'),
      ...(authors !== undefined ? { authors } : {}),
      signal: context.req.raw.signal,
    });
    return context.json(result);
  });
}
