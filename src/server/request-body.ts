/**
 * Request bodies: JSON within the size limit (enforced by the body-limit middleware before
 * this reads), checked field by field. A bad field is a 400 naming it (`newMessage.parts[0]`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { MAX_JSON_DEPTH } from '../events/json-value.js';
import { joinPath, PartSchema } from '../events/schema.js';
import type { Content } from '../events/types.js';
import { preview } from '../events/validate-event.js';
import { errorMessage } from '../util/error-message.js';
import { HttpProblem } from './errors.js';
import { badRequest, problemResponse } from './problem.js';
import type { ServerEnv } from './server-env.js';

/**
 * Deepest nesting of objects and arrays a request body may hold (an event's own limit,
 * `MAX_JSON_DEPTH`): deeper bodies are the client's error, never a stack overflow in a check.
 */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH;

/** The body as JSON; an empty body is `undefined` (allowed where `optional`). */
export async function readJsonBody(
  context: Context,
  options: { optional?: boolean } = {},
): Promise<unknown> {
  return jsonBodyOf(await context.req.text(), options);
}

/** A request body's text as JSON; an empty body is `undefined` (allowed where `optional`). */
export function jsonBodyOf(text: string, options: { optional?: boolean } = {}): unknown {
  if (text.trim() === '') {
    if (options.optional) return undefined;
    throw badRequest('the request body is empty: send a JSON object', 'body');
  }
  return parseJsonText(text);
}

/** `text` as JSON, nested at most `MAX_BODY_DEPTH` levels; a 400 naming `body` or the field. */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    throw badRequest(`the request body is not valid JSON: ${reason}`, 'body', error);
  }
  // Nesting past the limit takes an opening and a closing bracket a level: a shorter text
  // cannot, and is not walked (most bodies).
  if (text.length > 2 * MAX_BODY_DEPTH) checkDepth(value);
  return value;
}

/** Iterative, so the check itself cannot overflow the stack it protects. */
function checkDepth(value: unknown): void {
  const stack: Array<{ value: unknown; depth: number; path: Array<string | number> }> = [
    { value, depth: 0, path: [] },
  ];
  while (stack.length > 0) {
    const item = stack.pop() as (typeof stack)[number];
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= MAX_BODY_DEPTH) {
      // The field is where the nesting starts: the path's first segments, not 512 of them.
      const field = joinPath('', item.path.slice(0, FIELD_SEGMENTS)) || 'body';
      throw badRequest(
        `${field}: nests deeper than ${MAX_BODY_DEPTH} levels of objects and arrays`,
        field,
      );
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(item.value)
      ? item.value.map((child, index) => [index, child])
      : Object.entries(item.value);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') {
        const path = item.path.length < FIELD_SEGMENTS ? [...item.path, key] : item.path;
        stack.push({ value: child, depth: item.depth + 1, path });
      }
    }
  }
}

/** Segments of a too-deep value's path named in the 400. */
const FIELD_SEGMENTS = 4;

/** Parses `input` with `schema`; the first issue becomes a 400 naming its field. */
export function parseBody<T>(schema: z.ZodType<T>, input: unknown, base = ''): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? joinPath(base, issue.path) : base;
  const field = path === '' ? 'body' : path;
  let value: unknown = input;
  for (const segment of issue?.path ?? []) {
    value =
      value !== null && typeof value === 'object'
        ? (value as Record<PropertyKey, unknown>)[segment as PropertyKey]
        : undefined;
  }
  throw badRequest(`${field}: ${issue?.message ?? 'invalid'} (got ${preview(value)})`, field);
}

const nonEmpty = z.string().min(1, 'must be a non-empty string');

/** ADK's `newMessage`: a user `Content` (the role may be left out). */
const NewMessageSchema = z.object({
  role: z.literal('user', 'must be "user" (the message the user sends)').optional(),
  parts: z.array(PartSchema).min(1, 'must hold at least one part'),
});

/** `POST /run` and `POST /run_sse`, ADK's `AgentRunRequest` (camelCase). */
export const RunRequestSchema = z.looseObject({
  appName: nonEmpty,
  userId: nonEmpty,
  sessionId: nonEmpty,
  newMessage: NewMessageSchema,
  streaming: z.boolean().optional(),
  /** ADK applies it to the session first; orrery's Runner does not take one (see `run.ts`). */
  stateDelta: z.record(z.string(), z.unknown()).nullable().optional(),
});

export type RunRequest = z.infer<typeof RunRequestSchema>;

export function newMessageContent(request: RunRequest): Content {
  return { role: 'user', parts: request.newMessage.parts as Content['parts'] };
}

/** `POST .../sessions` and `POST .../sessions/{id}`: ADK's `CreateSessionRequest`. */
export const CreateSessionSchema = z
  .looseObject({
    sessionId: nonEmpty.optional(),
    state: z.record(z.string(), z.unknown()).nullable().optional(),
    events: z
      .array(z.unknown())
      .max(0, 'importing events at creation is not supported: use orrery import')
      .optional(),
  })
  .optional();

export type CreateSessionRequest = z.infer<typeof CreateSessionSchema>;

/** The 413 of a body over the limit, naming `field`. */
export function bodyTooLarge(options: { detail: string; field: string }): HttpProblem {
  return new HttpProblem({
    status: 413,
    slug: 'body-too-large',
    title: 'Content Too Large',
    detail: options.detail,
    field: options.field,
  });
}

/**
 * The body-limit middleware: a body over `maxBytes` is a 413 naming `field`. A body with a
 * `content-length` (and no `transfer-encoding`) is judged by the header alone, before anything
 * touches `Request.body`: on @hono/node-server that getter builds a whole web `Request` and
 * makes the route read its body through a web stream (a fifth of a `/run`'s CPU in a profile).
 * A streamed body goes through Hono's `bodyLimit`, which counts its bytes.
 */
export function limitBody(options: {
  maxBytes: number;
  detail: string;
  field: string;
  /** Requests this limit leaves alone (a route with a limit of its own). */
  skip?: (path: string) => boolean;
}): MiddlewareHandler<ServerEnv> {
  const tooLarge = (context: Context<ServerEnv>) =>
    problemResponse(bodyTooLarge(options), context.get('requestId'));
  const streamed = bodyLimit({ maxSize: options.maxBytes, onError: tooLarge });
  const skip = options.skip;
  return async (context, next) => {
    // Checked here rather than with `hono/combine`'s `except`, whose wrapper costs a dispatch.
    if (skip?.(context.req.path)) return next();
    const method = context.req.method;
    // No body to limit (as Hono's middleware finds after building the Request).
    if (method === 'GET' || method === 'HEAD') return next();
    const length = context.req.header('content-length');
    if (length !== undefined && context.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > options.maxBytes ? tooLarge(context) : next();
    }
    return streamed(context, next);
  };
}
