/**
 * ADK's web UI (`@google/adk-devtools`' browser bundle) at `/dev-ui/`, for `orrery serve
 * --dev-ui`: the UI talks to this server's ADK routes on the same origin. (`/` is the inspector.)
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Hono } from 'hono';
import { ServeConfigError } from '../errors.js';
import type { ServerEnv } from '../server-env.js';

/** The bundle's folder in the installed `@google/adk-devtools`. */
export function findDevUiRoot(): string {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('@google/adk-devtools');
  } catch (error) {
    throw new ServeConfigError({
      field: '--dev-ui',
      message:
        "ADK's web UI comes from the @google/adk-devtools package, which is not installed: npm install --save-dev @google/adk-devtools",
      cause: error,
    });
  }
  // `dist/cjs/index.js` → `dist/browser`.
  const root = join(dirname(entry), '..', 'browser');
  if (!existsSync(join(root, 'index.html'))) {
    throw new ServeConfigError({
      field: '--dev-ui',
      message: `@google/adk-devtools has no browser bundle at ${root}`,
    });
  }
  return root;
}

export function registerDevUiRoutes(app: Hono<ServerEnv>, options: { root: string }): void {
  app.get('/dev-ui', (context) => context.redirect('/dev-ui/'));
  app.get(
    '/dev-ui/*',
    serveStatic({
      root: options.root,
      rewriteRequestPath: (path) => path.replace(/^\/dev-ui/, ''),
      // The UI routes itself: an unknown path is its index page.
      onNotFound: () => undefined,
    }),
  );
  app.get('/dev-ui/*', serveStatic({ root: options.root, path: 'index.html' }));
}
