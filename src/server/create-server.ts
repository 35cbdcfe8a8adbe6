/**
 * `createServer`: orrery's HTTP transport as a library. A Hono app serving ADK's API (sessions,
 * `/run`, `/run_sse`) over one Runner, orrery's own session routes, operations routes, and
 * optionally ADK's web UI; `listen()` starts it on Node's HTTP server and returns the handle
 * that shuts it down gracefully.
 */
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import pino, { type Logger } from 'pino';
import type { EventsSummarizer } from '../compaction/types.js';
import { maskingLogger } from '../observability/masked-logger.js';
import type { AgentApp } from '../runtime/turn/app.js';
import { Runner } from '../runtime/turn/runner.js';
import type { SessionService } from '../sessions/session-service.js';
import { DigestSummarizer } from '../summarizers/digest-summarizer.js';
import { accessLog } from './access-log.js';
import { TokenAuth, UNAUTHORIZED_HEADERS, unauthorized } from './auth.js';
import { fastRunRoute } from './fast-run.js';
import { createHttpMetrics } from './http-metrics.js';
import { InFlightRuns } from './in-flight.js';
import type { InspectorOptions } from './inspector/inspector-deps.js';
import {
  hasOwnBodyLimit,
  isInspectorPagePath,
  registerInspector,
} from './inspector/register-inspector.js';
import { type ListeningServer, listenOn } from './listen.js';
import { notFound, problemResponse, webResponse } from './problem.js';
import { limitBody } from './request-body.js';
import { requestFailureReply } from './request-failure.js';
import { registerAdkSessionRoutes } from './routes/adk-sessions.js';
import { registerDevUiRoutes } from './routes/dev-ui.js';
import { registerMemoryRoutes } from './routes/memory.js';
import { registerNotServedRoutes } from './routes/not-served.js';
import { registerOperationRoutes } from './routes/operations.js';
import { registerOrrerySessionRoutes } from './routes/orrery-sessions.js';
import { registerRunRoutes } from './routes/run.js';
import type { RouteDeps, ServerEnv } from './server-env.js';
import type { TokenGrant } from './tokens.js';

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** @deprecated One name per concept: use `AgentApp` (from `orrery`). */
export type ServerApp = AgentApp;

export interface CreateServerOptions {
  /** The Runner to serve; or give `app` and the server builds one (background compaction on). */
  runner?: Runner;
  app?: AgentApp;
  /** The Runner's store (the server reads sessions from it and checks it for `/readyz`). */
  sessionService: SessionService;
  /** Bearer tokens and their users. Default: none (every request allowed). */
  auth?: TokenAuth | { grants: readonly TokenGrant[] };
  /** Access and run logs (masked). `false`: none. Default: pino at `info` on stdout. */
  logger?: Logger | false;
  /** Larger request bodies get a 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Serve ADK's web UI from this folder at `/dev-ui/` (see `findDevUiRoot`). */
  devUiRoot?: string;
  /** Writes `POST .../compact` summaries. Default: the Runner's summarizer when it has one in its config, else a `DigestSummarizer`. */
  manualSummarizer?: EventsSummarizer;
  /** The session inspector at `/` (its replay, body limit, page folder). */
  inspector?: InspectorOptions;
}

export interface OrreryServer {
  readonly app: Hono<ServerEnv>;
  readonly runner: Runner;
  readonly inFlight: InFlightRuns;
  readonly logger: Logger;
  /** Starts listening (port 0: a free one). Resolves once it accepts connections. */
  listen(options: { port?: number; host?: string }): Promise<ListeningServer>;
}

function packageVersion(): string {
  try {
    const manifest = createRequire(import.meta.url)('../../package.json') as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function runnerOf(options: CreateServerOptions, logger: Logger): Runner {
  if (options.runner && options.app) {
    throw new TypeError('createServer: pass either runner or app, not both');
  }
  if (options.runner) return options.runner;
  const app = options.app;
  if (!app) throw new TypeError('createServer: pass a runner or an app');
  return new Runner({
    appName: app.appName ?? app.agent.name,
    agent: app.agent,
    sessionService: options.sessionService,
    compaction: app.compaction,
    summarizer: app.summarizer,
    plugins: app.plugins,
    sessionLease: app.sessionLease,
    logger: logger.child({ component: 'runner' }),
    // A response ends with the agent's last event; the next run on the session waits for it.
    background: true,
  });
}

export function createServer(options: CreateServerOptions): OrreryServer {
  const logger =
    options.logger === false
      ? pino({ level: 'silent' })
      : maskingLogger(options.logger ?? pino({ level: 'info' }));
  const runner = runnerOf(options, logger);
  const auth =
    options.auth instanceof TokenAuth
      ? options.auth
      : new TokenAuth({ grants: options.auth?.grants ?? [] });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const inFlight = new InFlightRuns();
  const metrics = createHttpMetrics({ registry: runner.metrics.registry });
  let draining = false;
  const shuttingDown = new AbortController();
  const deps: RouteDeps = {
    runner,
    sessionService: options.sessionService,
    inFlight,
    manualSummarizer:
      options.manualSummarizer ?? runner.compactionConfig?.summarizer ?? new DigestSummarizer(),
    isDraining: () => draining,
    version: packageVersion(),
  };

  const app = new Hono<ServerEnv>();
  app.use(accessLog({ logger, metrics }));

  const publicPaths = new Set(['/healthz', '/readyz', '/version']);
  // The token check and the draining header, one middleware (each one is a dispatch of
  // Hono's compose, on every request).
  app.use(async (context, next) => {
    const path = context.req.path;
    if (
      publicPaths.has(path) ||
      isInspectorPagePath(path) ||
      path === '/dev-ui' ||
      path.startsWith('/dev-ui/')
    ) {
      context.set('principal', { userIds: 'any', operator: false });
      await next();
    } else {
      const result = auth.authenticate(context.req.header('authorization'));
      if (result.ok) {
        context.set('principal', result.principal);
        await next();
      } else {
        context.res = problemResponse(
          unauthorized(result.reason),
          context.get('requestId'),
          UNAUTHORIZED_HEADERS,
        );
      }
    }
    // A draining server tells keep-alive clients to reconnect (to another replica).
    if (draining) context.header('connection', 'close');
  });
  const tooLargeDetail = `the request body is over this server's limit of ${maxBodyBytes} bytes`;
  app.use(
    limitBody({
      maxBytes: maxBodyBytes,
      detail: tooLargeDetail,
      field: 'body',
      // The inspector's replay takes a whole transcript: it has its own limit.
      skip: hasOwnBodyLimit,
    }),
  );

  registerOperationRoutes(app, deps);
  registerAdkSessionRoutes(app, deps);
  registerOrrerySessionRoutes(app, deps);
  registerRunRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerNotServedRoutes(app);
  registerInspector(app, {
    deps,
    inspector: options.inspector,
    shutdownSignal: shuttingDown.signal,
  });
  if (options.devUiRoot) registerDevUiRoutes(app, { root: options.devUiRoot });

  app.notFound((context) =>
    problemResponse(
      notFound(`no route for ${context.req.method} ${context.req.path}`),
      context.get('requestId'),
    ),
  );
  app.onError((error, context) =>
    webResponse(
      requestFailureReply({
        error,
        clientSignal: context.req.raw.signal,
        logger: context.get('logger') ?? logger,
        requestId: context.get('requestId'),
      }),
    ),
  );

  return {
    app,
    runner,
    inFlight,
    logger,
    listen: (listenOptions) =>
      listenOn({
        app,
        port: listenOptions.port ?? 0,
        host: listenOptions.host ?? '127.0.0.1',
        inFlight,
        runner,
        logger,
        startDraining: () => {
          draining = true;
          shuttingDown.abort();
        },
        nodeRoute: (defaultHost) =>
          fastRunRoute({
            deps,
            auth,
            logger,
            metrics,
            maxBodyBytes,
            tooLargeDetail,
            defaultHost,
          }),
      }),
  };
}
