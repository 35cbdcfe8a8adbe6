/**
 * One structured line per request (pino): request id, method, path (no query string: it is the
 * client's), route pattern, status, duration, user, token id (a digest prefix, never the
 * token). The request id is the caller's `x-request-id` when it is a plain short id, else a
 * new UUID; it is returned in `x-request-id` and carried by every log line of the request.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import { unmaskedLogger } from '../observability/masked-logger.js';
import { maskCredentials } from '../redaction/index.js';
import type { HttpMetrics } from './http-metrics.js';
import type { ServerEnv } from './server-env.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string | undefined): string {
  return header !== undefined && REQUEST_ID.test(header) ? header : randomUUID();
}

function routeLabel(pattern: string): string {
  return pattern === '*' || pattern === '/*' ? 'unmatched' : pattern;
}

export function accessLog(options: {
  logger: Logger;
  metrics: HttpMetrics;
}): MiddlewareHandler<ServerEnv> {
  return async (context, next) => {
    const started = performance.now();
    const requestId = requestIdOf(context.req.header('x-request-id'));
    const logger = options.logger.child({ requestId });
    context.set('requestId', requestId);
    context.set('logger', logger);
    try {
      await next();
    } finally {
      context.header('x-request-id', requestId);
      const seconds = (performance.now() - started) / 1000;
      const route = routeLabel(routePath(context, -1));
      const status = context.res.status;
      options.metrics.observe({ method: context.req.method, route, status, seconds });
      const principal = context.var.principal;
      // Masked here, only what the client gave (method, path, user): the route is the
      // server's pattern, the token id a digest, the rest numbers. The masking logger would
      // copy the whole line and scan every string of it, a tenth of the HTTP layer's CPU.
      const method = maskCredentials(context.req.method);
      const path = maskCredentials(context.req.path);
      const userId = context.var.userId;
      unmaskedLogger(logger).info(
        {
          msgType: 'access',
          method,
          path,
          route,
          status,
          durationMs: Math.round(seconds * 1000 * 10) / 10,
          userId: userId === undefined ? undefined : maskCredentials(userId),
          tokenId: principal?.tokenId,
        },
        `${method} ${path} ${status}`,
      );
    }
  };
}
