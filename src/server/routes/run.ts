/**
 * `POST /run` (every event of the invocation as one JSON array) and `POST /run_sse` (one
 * Server-Sent Event per event: `data: <event json>\n\n`), as ADK's API server answers them:
 * the user's message is stored first but not sent back, as ADK's runner does.
 * The run's signal aborts when the client disconnects or a shutdown gives up waiting; what was
 * stored by then stays stored (the store is append-only, each event is stored before it is sent).
 */
import type { Context, Hono } from 'hono';
import { toAdkEventJson } from '../../events/adk-json-export.js';
import type { NewEvent } from '../../events/types.js';
import { errorLogFields } from '../client-closed.js';
import { type HttpProblem, ServerDrainingError } from '../errors.js';
import { plainRunRequest } from '../plain-run-request.js';
import { badRequest, problemBody, problemResponse, toProblem } from '../problem.js';
import {
  newMessageContent,
  parseBody,
  type RunRequest,
  RunRequestSchema,
  readJsonBody,
} from '../request-body.js';
import { runOptionsFor } from '../run-options.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { checkApp, checkUser } from '../session-access.js';
import { closeStream, sseMessage, sseResponse } from '../sse.js';

/** A stored event, or a partial one (no `seq`) when the run streams. */
type RunEvent = NewEvent & { seq?: number };

async function readRunRequest(context: Context<ServerEnv>, deps: RouteDeps): Promise<RunRequest> {
  const body = await readJsonBody(context);
  const request = plainRunRequest(body) ?? parseBody(RunRequestSchema, body);
  checkApp(deps, request.appName);
  checkUser(context, request.userId, request.sessionId);
  if (request.stateDelta && Object.keys(request.stateDelta).length > 0) {
    throw badRequest(
      'stateDelta: orrery applies no state delta with a message (state changes come from events the agent stores)',
      'stateDelta',
    );
  }
  if (deps.isDraining()) throw new ServerDrainingError();
  return request;
}

export function registerRunRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  app.post('/run', async (context) => {
    const request = await readRunRequest(context, deps);
    const tracked = deps.inFlight.start(context.req.raw.signal);
    const events: RunEvent[] = [];
    try {
      const run = deps.runner.run(
        runOptionsFor({
          request,
          newMessage: newMessageContent(request),
          signal: tracked.signal,
          streaming: false,
        }),
      );
      let userMessage = true;
      for await (const event of run) {
        // ADK's runner stores the user's message without yielding it: its clients add it.
        if (userMessage) userMessage = false;
        else if (!event.partial) events.push(event);
      }
      return context.json(events.map((event) => toAdkEventJson(event)));
    } catch (error) {
      return runFailure(context, error, events, tracked.signal);
    } finally {
      tracked.finish();
    }
  });

  app.post('/run_sse', async (context) => {
    const request = await readRunRequest(context, deps);
    const tracked = deps.inFlight.start(context.req.raw.signal);
    const run = deps.runner.run(
      runOptionsFor({
        request,
        newMessage: newMessageContent(request),
        signal: tracked.signal,
        streaming: request.streaming === true,
      }),
    );
    // The first event (the user's message, stored) decides the status: a missing or busy
    // session is an HTTP error, not an event in a 200 stream.
    let first: IteratorResult<RunEvent, void>;
    try {
      first = await run.next();
    } catch (error) {
      tracked.finish();
      return runFailure(context, error, [], tracked.signal);
    }
    const logger = context.get('logger');
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          // The user's message is stored, not sent back (ADK's clients show their own).
          if (!first.done) {
            for await (const event of run) controller.enqueue(sseMessage(toAdkEventJson(event)));
          }
        } catch (error) {
          if (!tracked.signal.aborted) {
            const problem = toProblem(error);
            logRunFailure(logger, problem, error);
            // ADK's clients read `error` from an event: the problem carries it.
            controller.enqueue(sseMessage(problemBody(problem, context.get('requestId'))));
          } else {
            logger.info(
              { msgType: 'run_aborted', reason: String(tracked.signal.reason) },
              'run aborted',
            );
          }
        } finally {
          tracked.finish();
          closeStream(controller);
        }
      },
      cancel() {
        // The reader stopped (client disconnect): the run's signal aborts through the request's.
      },
    });
    return sseResponse({ body, requestId: context.get('requestId') });
  });
}

function logRunFailure(
  logger: ServerEnv['Variables']['logger'],
  problem: HttpProblem,
  error: unknown,
): void {
  const level = problem.status >= 500 ? 'error' : 'info';
  logger[level](
    { msgType: 'run_failed', status: problem.status, error: errorLogFields(error) },
    problem.message,
  );
}

/** A run that threw: a problem, with the events stored before it (ADK answers `{ error, events }`). */
function runFailure(
  context: Context<ServerEnv>,
  error: unknown,
  events: RunEvent[],
  signal: AbortSignal,
): Response {
  const logger = context.get('logger');
  if (signal.aborted && !context.req.raw.signal.aborted) {
    // The shutdown deadline passed: the client is still there and hears why.
    const problem = new ServerDrainingError({ aborted: true });
    logger.warn({ msgType: 'run_aborted' }, problem.message);
    return withEvents(problem, context, events);
  }
  if (context.req.raw.signal.aborted) {
    logger.info(
      { msgType: 'client_disconnected', storedEvents: events.length },
      'client disconnected; the run stopped',
    );
    return new Response(null, { status: 499 });
  }
  const problem = toProblem(error);
  logRunFailure(logger, problem, error);
  return withEvents(problem, context, events);
}

function withEvents(
  problem: HttpProblem,
  context: Context<ServerEnv>,
  events: RunEvent[],
): Response {
  if (events.length === 0) return problemResponse(problem, context.get('requestId'));
  const body = {
    ...problemBody(problem, context.get('requestId')),
    events: events.map((event) => toAdkEventJson(event)),
  };
  return new Response(JSON.stringify(body), {
    status: problem.status,
    headers: { 'content-type': 'application/problem+json' },
  });
}
