/**
 * The checks every session route makes before touching the store: the app is this server's,
 * and the token may act as the user. Both failures are a 404 so nothing leaks existence.
 */
import type { Context } from 'hono';
import type { SessionKey } from '../events/types.js';
import { mayActAs } from './auth.js';
import { notFound } from './problem.js';
import type { RouteDeps, ServerEnv } from './server-env.js';

export function checkApp(deps: RouteDeps, appName: string): void {
  if (appName !== deps.runner.appName) {
    throw notFound(
      `app '${appName}' is not served here (GET /list-apps lists the apps)`,
      'appName',
    );
  }
}

/** The user's sessions, or a 404 like a missing session's for a user the token is not. */
export function checkUser(context: Context<ServerEnv>, userId: string, sessionId?: string): void {
  context.set('userId', userId);
  if (mayActAs(context.get('principal'), userId)) return;
  throw sessionId === undefined
    ? notFound(`user '${userId}' has no sessions here`, 'userId')
    : notFound(`session '${sessionId}' not found`, 'sessionId');
}

/** The key of `/apps/:app/users/:user/sessions/:session/...`, checked. */
export function sessionKeyOf(context: Context<ServerEnv>, deps: RouteDeps): SessionKey {
  const appName = context.req.param('app') ?? '';
  const userId = context.req.param('user') ?? '';
  const sessionId = context.req.param('session') ?? '';
  checkApp(deps, appName);
  checkUser(context, userId, sessionId);
  return { appName, userId, sessionId };
}
