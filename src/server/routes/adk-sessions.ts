/**
 * ADK's session routes, as its API server answers them (`@google/adk-devtools`, `adk api_server`):
 * sessions in ADK's JSON (camelCase; orrery's `seq` under `customMetadata.orrery`).
 */
import type { Context, Hono } from 'hono';
import { toAdkSessionJson } from '../../events/adk-json-export.js';
import type { Session } from '../../events/types.js';
import type { SessionSummary } from '../../sessions/session-service.js';
import { notFound } from '../problem.js';
import { CreateSessionSchema, parseBody, readJsonBody } from '../request-body.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { checkApp, checkUser, sessionKeyOf } from '../session-access.js';

export function adkSessionJson(session: Session): Record<string, unknown> {
  return toAdkSessionJson({ session, events: session.events });
}

function summaryJson(summary: SessionSummary): Record<string, unknown> {
  return {
    id: summary.sessionId,
    appName: summary.appName,
    userId: summary.userId,
    events: [],
    lastUpdateTime: summary.lastUpdateTime,
    eventCount: summary.eventCount,
  };
}

export function registerAdkSessionRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  const { sessionService } = deps;

  app.get('/list-apps', (context) => context.json([deps.runner.appName]));

  app.get('/apps/:app/users/:user/sessions', async (context) => {
    const appName = context.req.param('app');
    const userId = context.req.param('user');
    checkApp(deps, appName);
    checkUser(context, userId);
    const sessions = await sessionService.listSessions({
      appName,
      userId,
      signal: context.req.raw.signal,
    });
    return context.json(sessions.map(summaryJson));
  });

  const create = async (context: Context<ServerEnv>, pathSessionId?: string) => {
    const appName = context.req.param('app') ?? '';
    const userId = context.req.param('user') ?? '';
    checkApp(deps, appName);
    checkUser(context, userId);
    const body = parseBody(CreateSessionSchema, await readJsonBody(context, { optional: true }));
    const sessionId = pathSessionId ?? body?.sessionId;
    const session = await sessionService.createSession({
      appName,
      userId,
      sessionId,
      state: body?.state ?? {},
      signal: context.req.raw.signal,
    });
    return context.json(adkSessionJson(session));
  };
  app.post('/apps/:app/users/:user/sessions', (context) => create(context));
  app.post('/apps/:app/users/:user/sessions/:session', (context) =>
    create(context, context.req.param('session')),
  );

  app.get('/apps/:app/users/:user/sessions/:session', async (context) => {
    const key = sessionKeyOf(context, deps);
    const session = await sessionService.getSession({
      ...key,
      events: 'full',
      signal: context.req.raw.signal,
    });
    if (!session) throw notFound(`session '${key.sessionId}' not found`, 'sessionId');
    return context.json(adkSessionJson(session));
  });

  app.delete('/apps/:app/users/:user/sessions/:session', async (context) => {
    const key = sessionKeyOf(context, deps);
    const signal = context.req.raw.signal;
    if (!(await sessionService.getSession({ ...key, signal }))) {
      throw notFound(`session '${key.sessionId}' not found`, 'sessionId');
    }
    await sessionService.deleteSession({ ...key, signal });
    return context.body(null, 204);
  });
}
