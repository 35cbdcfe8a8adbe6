/**
 * The session inspector: its page at `/` and `/inspector/*`, its API under `/inspector/api/`.
 * See `docs/architecture.md#inspector`.
 */
import type { Hono } from 'hono';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { INSPECTOR_API_PREFIX } from './api-types.js';
import { registerBranchRoutes } from './branch-routes.js';
import { registerCallRoutes } from './call-routes.js';
import type { InspectorDeps, InspectorOptions } from './inspector-deps.js';
import { REPLAY_PATH, registerReplayRoute } from './replay-route.js';
import { CompactionIndex } from './session-history.js';
import { registerSessionRoutes } from './session-routes.js';
import { registerSessionsRoute } from './sessions-route.js';
import { defaultAssetsRoot, INSPECTOR_PAGE_PREFIX, registerStaticFiles } from './static-files.js';
import { registerStreamRoute } from './stream-route.js';

/** Paths served without a token: the page (it asks for one), never the API. */
export function isInspectorPagePath(path: string): boolean {
  return (
    path === '/' ||
    path === '/inspector' ||
    (path.startsWith(INSPECTOR_PAGE_PREFIX) && !path.startsWith(`${INSPECTOR_API_PREFIX}/`))
  );
}

/** The one route whose body limit is its own, not the server's. */
export function hasOwnBodyLimit(path: string): boolean {
  return path === REPLAY_PATH;
}

export function registerInspector(
  app: Hono<ServerEnv>,
  options: { deps: RouteDeps; inspector?: InspectorOptions; shutdownSignal: AbortSignal },
): void {
  const inspector = options.inspector ?? {};
  const deps: InspectorDeps = {
    ...options.deps,
    options: inspector,
    shutdownSignal: options.shutdownSignal,
    compactions: new CompactionIndex(options.deps.sessionService),
  };
  registerSessionsRoute(app, deps);
  registerSessionRoutes(app, deps);
  registerBranchRoutes(app, deps);
  registerCallRoutes(app, deps);
  registerStreamRoute(app, deps);
  registerReplayRoute(app, deps);
  registerStaticFiles(app, { root: inspector.assetsRoot ?? defaultAssetsRoot() });
}
