/**
 * The listening server and its graceful shutdown: stop accepting, let the runs in flight finish
 * until the deadline, abort the rest (their stored events stay), wait for background
 * compactions (`runner.flush()`). Closing the store is the owner's (the CLI's) last step.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Runner } from '../runtime/turn/runner.js';
import { ServeConfigError, ServerDrainingError } from './errors.js';
import type { NodeRoute } from './fast-run.js';
import type { InFlightRuns } from './in-flight.js';
import type { ServerEnv } from './server-env.js';

/** After the deadline's abort, runs get this long to unwind before the shutdown goes on. */
const ABORT_GRACE_MS = 5_000;

export interface ShutdownReport {
  /** Runs that finished on their own during the shutdown. */
  finished: number;
  /** Runs aborted at the deadline. */
  aborted: number;
  durationMs: number;
}

export interface ListeningServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly server: Server;
  /** Graceful shutdown (idempotent: a second call returns the first one's promise). */
  shutdown(options?: { timeoutMs?: number }): Promise<ShutdownReport>;
}

/** A port in use or an address not on this machine names the flag to change. */
function listenError(error: NodeJS.ErrnoException, options: { host: string; port: number }): Error {
  if (error.code === 'EADDRINUSE') {
    return new ServeConfigError({
      field: '--port',
      message: `${options.host}:${options.port} is in use by another process: pass another --port (0 picks a free one)`,
      cause: error,
    });
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    return new ServeConfigError({
      field: '--host',
      message: `cannot listen on ${options.host}: no such address on this machine`,
      cause: error,
    });
  }
  return error;
}

export async function listenOn(options: {
  app: Hono<ServerEnv>;
  port: number;
  host: string;
  inFlight: InFlightRuns;
  /** Waited for after the runs (background compactions); the gateway has none. */
  runner: Pick<Runner, 'flush'>;
  logger: Logger;
  startDraining: () => void;
  /**
   * Routes served on `node:http` before Hono sees the request (`POST /run`, `fast-run.ts`);
   * given the listening host, the one a request without a `Host` header names.
   */
  nodeRoute?: (defaultHost: string) => NodeRoute;
}): Promise<ListeningServer> {
  const { inFlight, runner, logger } = options;
  const server = await new Promise<Server>((resolve, reject) => {
    // `serve()` of @hono/node-server, with the node route in front.
    const hono = getRequestListener(options.app.fetch, { hostname: options.host });
    const nodeRoute = options.nodeRoute?.(options.host);
    const started = createServer(
      nodeRoute
        ? (request, response) => {
            if (!nodeRoute(request, response)) void hono(request, response);
          }
        : hono,
    );
    started.listen(options.port, options.host);
    started.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    started.once('listening', () => {
      started.off('error', reject);
      resolve(started);
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let shutdown: Promise<ShutdownReport> | undefined;

  const runShutdown = async (timeoutMs: number): Promise<ShutdownReport> => {
    const started = performance.now();
    options.startDraining();
    const before = inFlight.size;
    logger.info(
      { msgType: 'shutdown', runsInFlight: before, timeoutMs },
      'shutting down: no new connections',
    );
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const finishedInTime = await inFlight.idle(AbortSignal.timeout(timeoutMs));
    let aborted = 0;
    if (!finishedInTime) {
      aborted = inFlight.size;
      logger.warn(
        { msgType: 'shutdown', aborted },
        `deadline of ${timeoutMs} ms passed: aborting ${aborted} run(s)`,
      );
      inFlight.abortAll(new ServerDrainingError({ aborted: true }));
      await inFlight.idle(AbortSignal.timeout(ABORT_GRACE_MS));
    }
    await runner.flush();
    // The last responses are being written (each says `connection: close`): let them go out,
    // then close whatever connection is left.
    server.closeIdleConnections();
    const drained = await Promise.race([
      closed.then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, ABORT_GRACE_MS, false).unref()),
    ]);
    if (!drained) server.closeAllConnections();
    await closed;
    const report = {
      finished: before - aborted,
      aborted,
      durationMs: Math.round(performance.now() - started),
    };
    logger.info({ msgType: 'shutdown', ...report }, 'shut down');
    return report;
  };

  return {
    url: `http://${hostForUrl}:${address.port}`,
    host: address.address,
    port: address.port,
    server,
    shutdown: (shutdownOptions = {}) => {
      shutdown ??= runShutdown(shutdownOptions.timeoutMs ?? 10_000);
      return shutdown;
    },
  };
}
