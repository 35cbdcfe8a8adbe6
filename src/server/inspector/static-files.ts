/**
 * The inspector page: `GET /` is `assets/inspector/index.html`, `GET /inspector/*` a file of that
 * folder. Only plain files inside the folder are served (no `..`, no dot files, no directory),
 * with their content type and an ETag the browser revalidates (`no-cache`), so a new version
 * is picked up at once and an unchanged one costs a 304.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Hono } from 'hono';
import type { ServerEnv } from '../server-env.js';
import { INSPECTOR_API_PREFIX } from './api-types.js';

/** Where the page's files are served from. */
export const INSPECTOR_PAGE_PREFIX = '/inspector/';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The package's `assets/inspector/`: `src/server/inspector/` and `dist/server/inspector/` are
 * both three levels below the package root.
 */
export function defaultAssetsRoot(): string {
  return fileURLToPath(new URL('../../../assets/inspector/', import.meta.url));
}

/**
 * The file a request path names inside `root`, or `undefined` when it names none safely: each
 * segment decoded once, and none may be empty, `.`/`..`-led or hold a separator or NUL.
 */
export function resolveAssetPath(root: string, relativePath: string): string | undefined {
  const segments: string[] = [];
  for (const raw of relativePath.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment.startsWith('.') || /[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  if (segments.length === 0) return undefined;
  const base = resolve(root);
  const path = resolve(join(base, ...segments));
  return path.startsWith(base + sep) ? path : undefined;
}

async function serveFile(context: Context<ServerEnv>, path: string): Promise<Response> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return context.notFound();
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const headers = {
    'content-type': CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'cache-control': 'no-cache',
    etag,
    'x-content-type-options': 'nosniff',
  };
  if (context.req.header('if-none-match') === etag) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(await readFile(path), { status: 200, headers });
}

export function registerStaticFiles(app: Hono<ServerEnv>, options: { root: string }): void {
  const { root } = options;
  app.get('/', (context) => serveFile(context, join(root, 'index.html')));
  app.get('/inspector', (context) => context.redirect(INSPECTOR_PAGE_PREFIX));
  app.get(`${INSPECTOR_PAGE_PREFIX}*`, (context) => {
    // The URL's own path, not a decoded one: each segment is decoded exactly once below.
    const pathname = new URL(context.req.url).pathname;
    if (pathname.startsWith(`${INSPECTOR_API_PREFIX}/`)) return context.notFound();
    const relative = pathname.slice(INSPECTOR_PAGE_PREFIX.length);
    const path = resolveAssetPath(root, relative === '' ? 'index.html' : relative);
    return path ? serveFile(context, path) : context.notFound();
  });
}
