/**
 * `createGateway`: provider-compatible endpoints that compact what they forward
 * (docs/gateway.md). The server's pieces are reused: access log and HTTP metrics, bearer tokens
 * (presented in `x-orrery-token`, because the Authorization header is the client's provider key
 * and goes upstream), the body limit, `/metrics`, `/healthz`, `/readyz`, and the graceful
 * shutdown of `listen`.
 */
import { Hono } from 'hono';
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import { newId } from '../events/event-helpers.js';
import type { Content } from '../events/types.js';
import { maskingLogger } from '../observability/masked-logger.js';
import { createCompactionMetrics } from '../observability/metrics.js';
import { type PiiRedactionPlugin, redactContent } from '../runtime/plugins/pii-redaction.js';
import type { SessionLeaseOptions } from '../runtime/turn/session-lease.js';
import { accessLog } from '../server/access-log.js';
import { TokenAuth } from '../server/auth.js';
import { createHttpMetrics } from '../server/http-metrics.js';
import { InFlightRuns } from '../server/in-flight.js';
import { type ListeningServer, listenOn } from '../server/listen.js';
import { limitBody } from '../server/request-body.js';
import { READY_TIMEOUT_MS } from '../server/routes/operations.js';
import type { ServerEnv } from '../server/server-env.js';
import type { TokenGrant } from '../server/tokens.js';
import type { SessionService } from '../sessions/session-service.js';
import { anthropicMessagesDialect } from './anthropic-messages-dialect.js';
import type { Dialect } from './dialect.js';
import { GatewayConversations } from './gateway-conversations.js';
import type { GatewayDeps } from './gateway-deps.js';
import { GatewayRecall } from './gateway-recall.js';
import { GEMINI_PATH_PREFIX, geminiDialect } from './gemini-dialect.js';
import { openAiChatDialect } from './openai-chat-dialect.js';
import { openAiResponsesDialect } from './openai-responses-dialect.js';
import { registerProviderRoute } from './provider-route.js';
import { TOKEN_HEADER } from './request-identity.js';
import { createUpstreamMetrics } from './upstream-metrics.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
export const DEFAULT_GATEWAY_APP = 'gateway';
/** Whole histories arrive on every request: a larger default than `serve`'s. */
export const DEFAULT_GATEWAY_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface CreateGatewayOptions {
  sessionService: SessionService;
  /** When and how much to compact (`createEventsCompactionConfig()`); `null`: forward as sent. */
  compaction: EventsCompactionConfig | null;
  /** Writes the summaries; default `compaction.summarizer`, else a `DigestSummarizer`. */
  summarizer?: EventsSummarizer;
  /** Sessions' app name (default `gateway`). */
  appName?: string;
  /** Upstream base URL of OpenAI's API (default `https://api.openai.com/v1`). */
  openAiBaseUrl?: string;
  /** Upstream base URL of Anthropic's API (default `https://api.anthropic.com`; `/v1/messages` is appended). */
  anthropicBaseUrl?: string;
  /**
   * Upstream base URL of the Gemini API (default `https://generativelanguage.googleapis.com`;
   * `/v1beta/models/{model}:generateContent` is appended).
   */
  geminiBaseUrl?: string;
  /** How the gateway calls upstream (default the global `fetch`; tests inject their own). */
  fetch?: typeof fetch;
  /** Gateway tokens and their users. Default: none (every request allowed, loopback only). */
  auth?: { grants: readonly TokenGrant[] };
  logger?: Logger | false;
  maxBodyBytes?: number;
  sessionLease?: SessionLeaseOptions | false;
  /** Metrics registry (default a new one). */
  registry?: Registry;
  /**
   * The redaction plugin whose rules mask secrets and personal data in every message before it
   * is stored (default none). What is forwarded keeps the client's own messages as sent.
   */
  redaction?: PiiRedactionPlugin;
  /**
   * Recall through the gateway (OpenAI Chat Completions, non-streamed): `'always'` offers the
   * `recall` tool on every request, `'header'` only on requests with `x-orrery-recall: 1`.
   * Default `false`: never.
   */
  recall?: 'always' | 'header' | false;
  /** New session ids for requests without `x-orrery-session` (default random). */
  newSessionId?: () => string;
}

export interface OrreryGateway {
  readonly app: Hono<ServerEnv>;
  readonly registry: Registry;
  listen(options: { port?: number; host?: string }): Promise<ListeningServer>;
}

/** The dialect whose error shape a path's client reads (OpenAI's for any other path). */
function dialectOf(path: string): Dialect {
  if (path.startsWith('/anthropic/')) return anthropicMessagesDialect;
  if (path.startsWith(GEMINI_PATH_PREFIX)) return geminiDialect;
  return openAiChatDialect;
}

export function createGateway(options: CreateGatewayOptions): OrreryGateway {
  const logger =
    options.logger === false
      ? pino({ level: 'silent' })
      : maskingLogger(options.logger ?? pino({ level: 'info' }));
  const registry = options.registry ?? new Registry();
  const metrics = createHttpMetrics({ registry });
  const auth = new TokenAuth({ grants: options.auth?.grants ?? [] });
  const inFlight = new InFlightRuns();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_GATEWAY_MAX_BODY_BYTES;
  let draining = false;
  const redaction = options.redaction;
  const deps: GatewayDeps = {
    appName: options.appName ?? DEFAULT_GATEWAY_APP,
    conversations: new GatewayConversations({
      sessionService: options.sessionService,
      compaction: options.compaction,
      summarizer: options.summarizer,
      sessionLease: options.sessionLease,
      logger: logger.child({ component: 'gateway' }),
      metrics: createCompactionMetrics({ registry }),
      ...(redaction && { redact: (content: Content) => redactContent(content, redaction.rules) }),
    }),
    inFlight,
    upstream: {
      baseUrls: {
        openai: (options.openAiBaseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, ''),
        anthropic: (options.anthropicBaseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, ''),
        gemini: (options.geminiBaseUrl ?? DEFAULT_GEMINI_BASE_URL).replace(/\/+$/, ''),
      },
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    },
    upstreamMetrics: createUpstreamMetrics({ registry }),
    newSessionId: options.newSessionId ?? newId,
    ...(options.recall && {
      recall: {
        answerer: new GatewayRecall({ sessionService: options.sessionService }),
        always: options.recall === 'always',
      },
    }),
  };

  const app = new Hono<ServerEnv>();
  app.use(accessLog({ logger, metrics }));
  app.use(async (context, next) => {
    await next();
    if (draining) context.header('connection', 'close');
  });
  app.get('/healthz', (context) => context.json({ status: 'ok' }));
  app.get('/readyz', async (context) => {
    if (draining) return context.json({ status: 'draining' }, 503);
    try {
      // A cheap scoped read, as `serve`'s: an empty list for a user no one is.
      await options.sessionService.listSessions({
        appName: deps.appName,
        userId: 'orrery:readyz',
        signal: AbortSignal.any([context.req.raw.signal, AbortSignal.timeout(READY_TIMEOUT_MS)]),
      });
      return context.json({ status: 'ready' });
    } catch {
      return context.json({ status: 'store unavailable' }, 503);
    }
  });
  app.get('/metrics', async (context) =>
    context.body(await registry.metrics(), 200, { 'content-type': registry.contentType }),
  );
  app.use(async (context, next) => {
    const token = context.req.header(TOKEN_HEADER);
    const result = auth.authenticate(token === undefined ? undefined : `Bearer ${token}`);
    if (!result.ok) {
      return dialectOf(context.req.path).error({
        status: 401,
        message: `this gateway needs its token in the ${TOKEN_HEADER} header (${result.reason}); the Authorization header is the provider's key`,
        type: 'invalid_request_error',
        param: TOKEN_HEADER,
        code: 'invalid_gateway_token',
      });
    }
    context.set('principal', result.principal);
    return next();
  });
  app.use(
    limitBody({
      maxBytes: maxBodyBytes,
      detail: `the request body is over this gateway's limit of ${maxBodyBytes} bytes`,
      field: 'body',
    }),
  );
  app.use(async (context, next) => {
    if (!draining) return next();
    return dialectOf(context.req.path).error({
      status: 503,
      message: 'the gateway is shutting down: retry on another replica',
      type: 'server_error',
      param: null,
      code: null,
    });
  });
  registerProviderRoute(app, deps, openAiChatDialect);
  registerProviderRoute(app, deps, openAiResponsesDialect);
  registerProviderRoute(app, deps, anthropicMessagesDialect);
  registerProviderRoute(app, deps, geminiDialect);
  app.notFound((context) =>
    dialectOf(context.req.path).error({
      status: 404,
      message:
        'no such route on the orrery gateway (served: POST /openai/v1/chat/completions, POST /openai/v1/responses, POST /anthropic/v1/messages, POST /gemini/v1beta/models/{model}:generateContent and :streamGenerateContent)',
      type: 'invalid_request_error',
      param: null,
      code: 'unknown_url',
    }),
  );

  return {
    app,
    registry,
    listen: (listenOptions) =>
      listenOn({
        app,
        port: listenOptions.port ?? 0,
        host: listenOptions.host ?? '127.0.0.1',
        inFlight,
        runner: { flush: () => Promise.resolve() },
        logger,
        startDraining: () => {
          draining = true;
        },
      }),
  };
}
