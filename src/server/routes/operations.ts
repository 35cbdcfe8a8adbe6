/** `/metrics` (Prometheus text, operator tokens only), `/healthz` (the process answers), `/readyz` (the store answers). */
import type { Hono } from 'hono';
import { errorMessage } from '../../util/error-message.js';
import { HttpProblem, ServerDrainingError } from '../errors.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';

/** `/readyz` gives the store this long to answer. */
export const READY_TIMEOUT_MS = 2_000;

export function registerOperationRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  app.get('/healthz', (context) => context.json({ status: 'ok' }));

  app.get('/readyz', async (context) => {
    if (deps.isDraining()) throw new ServerDrainingError();
    const signal = AbortSignal.any([context.req.raw.signal, AbortSignal.timeout(READY_TIMEOUT_MS)]);
    try {
      // A cheap scoped read: an empty list for a user no one is.
      await deps.sessionService.listSessions({
        appName: deps.runner.appName,
        userId: 'orrery:readyz',
        signal,
      });
    } catch (error) {
      throw new HttpProblem({
        status: 503,
        slug: 'store-unreachable',
        title: 'Service Unavailable',
        detail: signal.aborted
          ? `the session store did not answer within ${READY_TIMEOUT_MS} ms`
          : `the session store failed: ${errorMessage(error)}`,
        cause: error,
      });
    }
    return context.json({ status: 'ready' });
  });

  app.get('/metrics', async (context) => {
    // The whole server's figures (every user's runs): an operator's, not any user's token.
    if (!context.var.principal?.operator) {
      throw new HttpProblem({
        status: 403,
        slug: 'forbidden',
        title: 'Forbidden',
        detail:
          'metrics are read with an operator token: give one the operator role in the tokens file (see docs/server-limits.md#metrics-access)',
        ownText: true,
      });
    }
    const registry = deps.runner.metrics.registry;
    return context.body(await registry.metrics(), 200, { 'content-type': registry.contentType });
  });

  app.get('/version', (context) => context.json({ version: deps.version, server: 'orrery' }));
}
