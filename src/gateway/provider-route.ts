/**
 * A provider's endpoint in front of the real one (`Dialect` says which): the client's messages
 * are logged in its orrery session (only the new ones), the history is replaced by the
 * session's view (summary + tail) under the compaction settings, and the request goes upstream
 * with the client's own credentials (forwarded, never stored or logged) and everything else of
 * the body unchanged (model, tools, settings, `stream`). The answer is stored and returned as
 * the provider sent it: the same status, body and SSE bytes.
 */
import type { Context, Hono } from 'hono';
import type { ActiveView } from '../compaction/view.js';
import type { SessionKey } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import { looksLikeContextOverflow } from '../models/classify-error.js';
import { ContextOverflowError, MessageTooLargeError } from '../runtime/errors.js';
import type { ServerEnv } from '../server/server-env.js';
import type { Dialect, DialectConversation, StoredAnswer, StreamAssembler } from './dialect.js';
import { GatewayRequestError } from './errors.js';
import type { PreparedTurn } from './gateway-conversations.js';
import type { GatewayDeps } from './gateway-deps.js';
import { type GatewayRecall, MAX_RECALL_ROUNDS, RECALL_HEADER } from './gateway-recall.js';
import { sessionIdOf, userIdOf } from './request-identity.js';

export function registerProviderRoute(
  app: Hono<ServerEnv>,
  deps: GatewayDeps,
  dialect: Dialect,
): void {
  app.post(dialect.path, async (context) => {
    const tracked = deps.inFlight.start(context.req.raw.signal);
    let turn: PreparedTurn | undefined;
    try {
      const body = await readBody(context);
      const conversation = dialect.conversation(body);
      const target = dialect.target({
        body,
        params: context.req.param(),
        baseUrl: deps.upstream.baseUrls[dialect.provider] ?? '',
      });
      const model = target.model;
      if (typeof model !== 'string' || model === '') {
        throw new GatewayRequestError({
          field: 'model',
          value: model,
          message: 'expected a model name',
        });
      }
      const userId = userIdOf(context);
      context.set('userId', userId);
      const sessionId =
        sessionIdOf(context) ??
        deps.conversations.matchSession({
          appName: deps.appName,
          userId,
          contents: conversation.contents,
        }) ??
        deps.newSessionId();
      const key: SessionKey = { appName: deps.appName, userId, sessionId };
      turn = await deps.conversations.prepare({
        key,
        contents: conversation.contents,
        model,
        instruction: conversation.instruction,
        tools: conversation.tools,
        signal: tracked.signal,
      });
      const prepared = turn;
      const recall = recallFor(context, deps, dialect, target.stream);
      let sent: Record<string, unknown> = body;
      const sendBody = async (next: Record<string, unknown>) => {
        sent = next;
        const forwarded = JSON.stringify(next);
        const response = await deps.upstream.fetch(target.upstreamUrl, {
          method: 'POST',
          headers: forwardedHeaders(context, dialect),
          body: forwarded,
          signal: tracked.signal,
        });
        deps.upstreamMetrics.observe({
          provider: dialect.provider,
          status: response.status,
          bytes: forwarded.length,
        });
        return { response, bytes: forwarded.length };
      };
      const send = (view: ActiveView | undefined) => {
        // The view's events are stored (maybe redacted) contents: a client's message is
        // forwarded as sent where the view shows its stored form unchanged.
        const stored = { ...conversation, contents: [...prepared.storedContents] };
        const next = view ? dialect.forwardBody({ body, conversation: stored, view }) : body;
        return sendBody(recall ? recall.offer(next) : next);
      };
      const first = await send(turn.view);
      let upstream = first.response;
      if (
        !upstream.ok &&
        turn.view &&
        looksLikeContextOverflow(upstream.status, await peek(upstream))
      ) {
        // The provider refused the request for size: compact with a smaller tail, retry once
        // (docs/architecture.md#when-compaction-runs); a second refusal goes to the client.
        const view = await prepared.retryAfterOverflow({ rejectedBytes: first.bytes });
        upstream = (await send(view)).response;
      }
      let text: string | undefined;
      for (let round = 0; recall && upstream.ok && round < MAX_RECALL_ROUNDS; round++) {
        // The model called only `recall`: answer it here and ask again (the client sees none).
        text = await upstream.text();
        const next = await recall.continueAfter({
          sent,
          answer: parsedJson(text),
          key,
          signal: tracked.signal,
        });
        if (!next) break;
        upstream = (await sendBody(next)).response;
        text = undefined;
      }
      const headers = returnedHeaders(upstream, dialect, sessionId, turn);
      if (text === undefined && (!upstream.ok || !upstream.body)) {
        // The provider's error, as it sent it; nothing is stored for the answer.
        const text = await peek(upstream);
        await finishTurn(context, turn);
        tracked.finish();
        return new Response(text, { status: upstream.status, headers });
      }
      if (target.stream) {
        const assembler = dialect.assembler(conversation);
        return streamed({ upstream, headers, turn, finish: tracked.finish, context, assembler });
      }
      text ??= await upstream.text();
      await finishTurn(context, turn, parsedAnswer(dialect, text, conversation));
      tracked.finish();
      return new Response(text, { status: upstream.status, headers });
    } catch (error) {
      if (turn) await finishTurn(context, turn);
      tracked.finish();
      return failure(context, dialect, error);
    }
  });
}

/** The body of an error response, read once and kept for the client. */
const peeked = new WeakMap<Response, string>();
async function peek(response: Response): Promise<string> {
  const known = peeked.get(response);
  if (known !== undefined) return known;
  const text = await response.text();
  peeked.set(response, text);
  return text;
}

async function readBody(context: Context<ServerEnv>): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await context.req.json();
  } catch (error) {
    throw new GatewayRequestError({
      field: 'body',
      value: undefined,
      message: 'expected a JSON object',
      cause: error,
    });
  }
  if (!isRecord(body)) {
    throw new GatewayRequestError({
      field: 'body',
      value: body,
      message: 'expected a JSON object',
    });
  }
  return body;
}

function forwardedHeaders(context: Context<ServerEnv>, dialect: Dialect): Headers {
  const headers = new Headers({ 'content-type': 'application/json' });
  for (const name of dialect.forwardedHeaders) {
    const value = context.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  headers.set('accept', context.req.header('accept') ?? 'application/json');
  for (const [name, value] of Object.entries(
    dialect.credentialHeaders?.(new URL(context.req.url)) ?? {},
  )) {
    headers.set(name, value);
  }
  return headers;
}

function returnedHeaders(
  upstream: Response,
  dialect: Dialect,
  sessionId: string,
  turn: PreparedTurn,
): Headers {
  const headers = new Headers();
  const type = upstream.headers.get('content-type');
  if (type) headers.set('content-type', type);
  for (const name of dialect.returnedHeaders) {
    const value = upstream.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set('x-orrery-session', sessionId);
  if (turn.branched) headers.set('x-orrery-branched', 'true');
  return headers;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The recall answerer when this request gets it: a dialect that has it, not streamed, opted in. */
function recallFor(
  context: Context<ServerEnv>,
  deps: GatewayDeps,
  dialect: Dialect,
  stream: boolean,
): GatewayRecall | undefined {
  if (!deps.recall || !dialect.recall || stream) return undefined;
  const asked = context.req.header(RECALL_HEADER)?.trim().toLowerCase();
  if (asked === '0' || asked === 'false') return undefined;
  return deps.recall.always || asked === '1' || asked === 'true' ? deps.recall.answerer : undefined;
}

function parsedAnswer(
  dialect: Dialect,
  text: string,
  conversation: DialectConversation,
): StoredAnswer | undefined {
  try {
    return dialect.answer(JSON.parse(text), conversation);
  } catch {
    return undefined;
  }
}

/** Stores the answer; a store failure is logged, never the client's (its answer came). */
async function finishTurn(
  context: Context<ServerEnv>,
  turn: PreparedTurn,
  answer?: StoredAnswer,
): Promise<void> {
  try {
    await turn.finish(answer);
  } catch (error) {
    context
      .get('logger')
      ?.warn(
        { msgType: 'answer_not_stored', sessionId: turn.key.sessionId, error: String(error) },
        'the answer could not be stored; the next request logs it from its history',
      );
  }
}

/**
 * The upstream's SSE bytes to the client as they come, and the same bytes to the assembler;
 * the answer is stored when the stream ends (the session stays locked until then).
 */
function streamed(options: {
  upstream: Response;
  headers: Headers;
  turn: PreparedTurn;
  finish: () => void;
  context: Context<ServerEnv>;
  assembler: StreamAssembler;
}): Response {
  const { upstream, turn, assembler } = options;
  let done = false;
  const end = async (complete: boolean) => {
    if (done) return;
    done = true;
    await finishTurn(options.context, turn, complete ? assembler.finish() : undefined);
    options.finish();
  };
  const relay = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      assembler.push(chunk);
      controller.enqueue(chunk);
    },
    flush: () => end(true),
  });
  // A client that goes away cancels the readable side: the pipe fails and nothing is stored.
  upstream.body!.pipeTo(relay.writable).catch(() => end(false));
  return new Response(relay.readable, { status: upstream.status, headers: options.headers });
}

function failure(context: Context<ServerEnv>, dialect: Dialect, error: unknown): Response {
  // The gateway's own errors in the shape the client's SDK reads.
  const errorResponse = dialect.error;
  if (GatewayRequestError.isInstance(error)) {
    return errorResponse({
      status: error.status,
      message: error.message,
      type: 'invalid_request_error',
      param: error.field,
      code: null,
    });
  }
  const name = isRecord(error) && typeof error.name === 'string' ? error.name : '';
  if (MessageTooLargeError.isInstance(error) || ContextOverflowError.isInstance(error)) {
    return errorResponse({
      status: 400,
      message: error instanceof Error ? error.message : String(error),
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    });
  }
  if (context.req.raw.signal.aborted) {
    return errorResponse({
      status: 499,
      message: 'the client went away',
      type: 'client_closed',
      param: null,
      code: null,
    });
  }
  const logger = context.get('logger');
  logger?.error({ msgType: 'gateway_failed', error }, 'the gateway could not forward the request');
  const upstreamFailed = name === 'TypeError' || name === 'AbortError';
  return errorResponse({
    status: upstreamFailed ? 502 : 500,
    message: upstreamFailed
      ? `the gateway could not reach the upstream: ${error instanceof Error ? error.message : String(error)}`
      : 'the gateway failed on this request (see its log)',
    type: upstreamFailed ? 'upstream_error' : 'server_error',
    param: null,
    code: null,
  });
}
