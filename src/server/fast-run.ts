/**
 * `POST /run` served on `node:http` directly: the route a server spends its time in, without
 * the web `Request`/`Response` objects `@hono/node-server` builds for Hono (a body read through
 * a web stream, a `Headers` object, a `Response` copied to add a header) nor Hono's middleware
 * chain. It keeps what the Hono route does, in its order, with the same functions: the request
 * id, the bearer token (`unauthorized`), the body limit (`content-length`, or the bytes of a
 * streamed body), the body's checks (`checkRunRequest`), the run (`collectRun`), the problem
 * answers (`runFailureReply`, `requestFailureReply`), `connection: close` while draining, the
 * access line and the metrics (`recordAccess`). `fast-run.test.ts` sends the same requests
 * through both and compares the answers. Anything it does not recognise as a plain
 * `POST /run` (another host form, an encoded path) goes to Hono.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { recordAccess, requestIdOf } from './access-log.js';
import { type Principal, type TokenAuth, UNAUTHORIZED_HEADERS, unauthorized } from './auth.js';
import { errorLogFields } from './client-closed.js';
import type { HttpMetrics } from './http-metrics.js';
import type { TrackedRun } from './in-flight.js';
import { type PlainReply, problemReply } from './problem.js';
import { bodyTooLarge, jsonBodyOf } from './request-body.js';
import { requestFailureReply } from './request-failure.js';
import { requestLogger } from './request-logger.js';
import {
  checkRunRequest,
  collectRun,
  type RunEvent,
  runEventsJson,
  runFailureReply,
} from './run-json.js';
import type { RouteDeps } from './server-env.js';

/** A route served on `node:http`: `false` leaves the request to the next listener (Hono). */
export type NodeRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface FastRunOptions {
  deps: RouteDeps;
  auth: TokenAuth;
  /** The server's (masking) logger. */
  logger: Logger;
  metrics: HttpMetrics;
  maxBodyBytes: number;
  /** The 413's detail (the Hono body limit's). */
  tooLargeDetail: string;
}

/** @hono/node-server's test of a host it takes as it is (anything else goes through `URL`). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** What the client's abort carries (@hono/node-server's reason, so logs read alike). */
const CLIENT_GONE = 'Client connection prematurely closed.';

/** Decodes as `Request.text()` does (UTF-8, a leading byte order mark dropped). */
const utf8 = new TextDecoder();

const TOO_LARGE = Symbol('too large');

/**
 * The fast path of `POST /run` (see the module comment). `defaultHost`: the host a request
 * without a `Host` header names (the listening address, as @hono/node-server takes it).
 */
export function fastRunRoute(options: FastRunOptions & { defaultHost: string }): NodeRoute {
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    if (url !== '/run' && !url.startsWith('/run?')) return false;
    const host = request.headers.host || options.defaultHost;
    // A host @hono/node-server checks through `URL` (or refuses): its answer, not ours.
    if (!PLAIN_HOST.test(host)) return false;
    serveRun(options, request, response).catch((error: unknown) => {
      // Every step answers its own failures; this is a bug's net (Hono's would be a 500).
      options.logger.error(
        { msgType: 'request_failed', status: 500, error: errorLogFields(error) },
        'the POST /run route failed outside its error handling',
      );
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
    return true;
  };
}

/** A header as Hono's `c.req.header()` reads it on @hono/node-server: repeats joined by ", ". */
function joinedHeader(request: IncomingMessage, lowerName: string): string | undefined {
  const raw = request.rawHeaders;
  let value: string | undefined;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as string;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) {
      const item = (raw[index + 1] as string).trim();
      value = value === undefined ? item : `${value}, ${item}`;
    }
  }
  return value;
}

/** What a request's steps share: its id, its client's presence, what the access line needs. */
interface RequestState {
  readonly requestId: string;
  /** The request's logger, made on first use (most requests log only their access line). */
  logger(): Logger;
  /** Set when the client went away before the answer (it aborts the run, if one started). */
  clientGone: boolean;
  clientGoneReason?: string;
  run?: TrackedRun;
  principal?: Principal;
  userId?: string;
}

async function serveRun(
  options: FastRunOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const requestId = requestIdOf(request.headers['x-request-id'] as string | undefined);
  let logger: Logger | undefined;
  const state: RequestState = {
    requestId,
    logger: () => {
      logger ??= requestLogger(options.logger, requestId);
      return logger;
    },
    clientGone: false,
  };
  response.once('close', () => {
    // As @hono/node-server aborts the request's signal (the Hono route's client signal).
    if (request.errored || !response.writableFinished) {
      state.clientGone = true;
      state.clientGoneReason = request.errored ? String(request.errored) : CLIENT_GONE;
      state.run?.abort(state.clientGoneReason);
    }
    // A body left unread (a 401, a 413): read off and dropped, as @hono/node-server does.
    if (!request.readableEnded) setTimeout(() => setTimeout(() => drain(request)));
  });
  let reply: PlainReply;
  try {
    reply = await answer(options, request, state);
  } catch (error) {
    reply = requestFailureReply({
      error,
      clientSignal: { aborted: state.clientGone },
      logger: state.logger(),
      requestId,
    });
  }
  // Hono's order: the route's headers, `connection: close` while draining, the request id.
  const headers: Record<string, string | number> = { ...reply.headers };
  if (options.deps.isDraining()) headers.connection = 'close';
  headers['x-request-id'] = requestId;
  recordAccess({
    logger: options.logger,
    metrics: options.metrics,
    requestId,
    method: 'POST',
    path: '/run',
    route: '/run',
    status: reply.status,
    started,
    userId: state.userId,
    tokenId: state.principal?.tokenId,
  });
  if (response.destroyed) return;
  if (reply.body === null) {
    response.writeHead(reply.status, headers).end();
    return;
  }
  headers['content-length'] = Buffer.byteLength(reply.body);
  response.writeHead(reply.status, headers).end(reply.body);
}

async function answer(
  options: FastRunOptions,
  request: IncomingMessage,
  state: RequestState,
): Promise<PlainReply> {
  const { requestId } = state;
  const authenticated = options.auth.authenticate(joinedHeader(request, 'authorization'));
  if (!authenticated.ok) {
    return problemReply(unauthorized(authenticated.reason), requestId, UNAUTHORIZED_HEADERS);
  }
  state.principal = authenticated.principal;
  const tooLarge = () =>
    problemReply(bodyTooLarge({ detail: options.tooLargeDetail, field: 'body' }), requestId);
  const length = joinedHeader(request, 'content-length');
  const limited = length !== undefined && request.headers['transfer-encoding'] === undefined;
  if (limited && Number.parseInt(length, 10) > options.maxBodyBytes) return tooLarge();
  // A body without a length is counted as it comes (as Hono's `bodyLimit` does).
  const bytes = await readBody(request, limited ? Number.POSITIVE_INFINITY : options.maxBodyBytes);
  if (bytes === TOO_LARGE) return tooLarge();
  const runRequest = checkRunRequest({
    body: jsonBodyOf(utf8.decode(bytes)),
    deps: options.deps,
    principal: authenticated.principal,
    onUser: (userId) => {
      state.userId = userId;
    },
  });
  const { deps } = options;
  // No client signal to hand over: the close handler aborts the run itself.
  const run = deps.inFlight.start();
  state.run = run;
  if (state.clientGone) run.abort(state.clientGoneReason);
  const events: RunEvent[] = [];
  try {
    await collectRun({ deps, request: runRequest, signal: run.signal, events });
    return {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: runEventsJson(events),
    };
  } catch (error) {
    return runFailureReply({
      error,
      events,
      signal: run.signal,
      clientSignal: { aborted: state.clientGone },
      logger: state.logger(),
      requestId,
    });
  } finally {
    run.finish();
  }
}

/** The whole body, or `TOO_LARGE` once more than `maxBytes` came (the rest is left unread). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        request.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // Closed before its end without an error: the client went away mid-body.
    const onClose = () => {
      done();
      reject(request.errored ?? new Error(CLIENT_GONE));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/** Reads off a body nobody reads, within @hono/node-server's bounds (0.5 s, 64 MiB). */
function drain(request: IncomingMessage): void {
  if (request.destroyed || request.readableEnded) return;
  let bytes = 0;
  const cleanup = () => {
    clearTimeout(timer);
    request.off('data', onData);
    request.off('end', cleanup);
    request.off('error', cleanup);
  };
  const forceClose = () => {
    cleanup();
    const socket = request.socket;
    if (socket && !socket.destroyed) socket.destroySoon();
  };
  const timer = setTimeout(forceClose, 500);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > 64 * 1024 * 1024) forceClose();
  };
  request.on('data', onData);
  request.on('end', cleanup);
  request.on('error', cleanup);
  request.resume();
}
