/**
 * `POST /run` apart from its transport: the body's checks, the run collected into one JSON
 * array, and the answer of a run that failed. The Hono route (`routes/run.ts`) and the
 * `node:http` fast path (`fast-run.ts`) both call these, so they answer and log alike.
 */
import type { Logger } from 'pino';
import { toAdkEventJson } from '../events/adk-json-export.js';
import type { NewEvent } from '../events/types.js';
import { mayActAs, type Principal } from './auth.js';
import { errorLogFields } from './client-closed.js';
import { type HttpProblem, ServerDrainingError } from './errors.js';
import { plainRunRequest } from './plain-run-request.js';
import {
  badRequest,
  notFound,
  type PlainReply,
  PROBLEM_CONTENT_TYPE,
  problemBody,
  problemReply,
  toProblem,
} from './problem.js';
import { newMessageContent, parseBody, type RunRequest, RunRequestSchema } from './request-body.js';
import { runOptionsFor } from './run-options.js';
import type { RouteDeps } from './server-env.js';
import { checkApp } from './session-access.js';

/** A stored event, or a partial one (no `seq`) when the run streams. */
export type RunEvent = NewEvent & { seq?: number };

/**
 * The run request in `body` (parsed JSON), checked in the order the route always did: its
 * shape, the app, the user (`onUser` hears the user id first, for the access log), the state
 * delta, then whether the server is draining.
 */
export function checkRunRequest(options: {
  body: unknown;
  deps: RouteDeps;
  principal: Principal;
  onUser: (userId: string) => void;
}): RunRequest {
  const { body, deps } = options;
  const request = plainRunRequest(body) ?? parseBody(RunRequestSchema, body);
  checkApp(deps, request.appName);
  options.onUser(request.userId);
  if (!mayActAs(options.principal, request.userId)) {
    // A 404 like a missing session's: a token cannot learn which sessions exist.
    throw notFound(`session '${request.sessionId}' not found`, 'sessionId');
  }
  if (request.stateDelta && Object.keys(request.stateDelta).length > 0) {
    throw badRequest(
      'stateDelta: orrery applies no state delta with a message (state changes come from events the agent stores)',
      'stateDelta',
    );
  }
  if (deps.isDraining()) throw new ServerDrainingError();
  return request;
}

/**
 * Runs `request` to its end, pushing onto `events` every stored event but the user's message
 * (ADK's runner stores it without yielding it: its clients add it). On a throw, `events` holds
 * what was stored before it.
 */
export async function collectRun(options: {
  deps: RouteDeps;
  request: RunRequest;
  signal: AbortSignal;
  events: RunEvent[];
}): Promise<void> {
  const { request, events } = options;
  const run = options.deps.runner.run(
    runOptionsFor({
      request,
      newMessage: newMessageContent(request),
      signal: options.signal,
      streaming: false,
    }),
  );
  let userMessage = true;
  for await (const event of run) {
    if (userMessage) userMessage = false;
    else if (!event.partial) events.push(event);
  }
}

/** The body of a finished `/run`: every event, ADK's JSON shape. */
export function runEventsJson(events: readonly RunEvent[]): string {
  return JSON.stringify(events.map((event) => toAdkEventJson(event)));
}

export function logRunFailure(logger: Logger, problem: HttpProblem, error: unknown): void {
  const level = problem.status >= 500 ? 'error' : 'info';
  logger[level](
    { msgType: 'run_failed', status: problem.status, error: errorLogFields(error) },
    problem.message,
  );
}

/**
 * A run that threw: a problem, with the events stored before it (ADK answers
 * `{ error, events }`). `signal` is the run's; `clientSignal` aborts when the client went away.
 */
export function runFailureReply(options: {
  error: unknown;
  events: readonly RunEvent[];
  signal: AbortSignal;
  clientSignal: Pick<AbortSignal, 'aborted'>;
  logger: Logger;
  requestId: string;
}): PlainReply {
  const { events, logger, requestId } = options;
  if (options.signal.aborted && !options.clientSignal.aborted) {
    // The shutdown deadline passed: the client is still there and hears why.
    const problem = new ServerDrainingError({ aborted: true });
    logger.warn({ msgType: 'run_aborted' }, problem.message);
    return withEvents(problem, requestId, events);
  }
  if (options.clientSignal.aborted) {
    logger.info(
      { msgType: 'client_disconnected', storedEvents: events.length },
      'client disconnected; the run stopped',
    );
    return { status: 499, headers: {}, body: null };
  }
  const problem = toProblem(options.error);
  logRunFailure(logger, problem, options.error);
  return withEvents(problem, requestId, events);
}

function withEvents(
  problem: HttpProblem,
  requestId: string,
  events: readonly RunEvent[],
): PlainReply {
  if (events.length === 0) return problemReply(problem, requestId);
  const body = {
    ...problemBody(problem, requestId),
    events: events.map((event) => toAdkEventJson(event)),
  };
  return {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE },
    body: JSON.stringify(body),
  };
}
