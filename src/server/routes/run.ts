/**
 * `POST /run` (every event of the invocation as one JSON array) and `POST /run_sse` (one
 * Server-Sent Event per event: `data: <event json>\n\n`), as ADK's API server answers them:
 * the user's message is stored first but not sent back, as ADK's runner does.
 * The run's signal aborts when the client disconnects or a shutdown gives up waiting; what was
 * stored by then stays stored (the store is append-only, each event is stored before it is sent).
 */
import type { Context, Hono } from 'hono';
import { toAdkEventJson } from '../../events/adk-json-export.js';
import { problemBody, toProblem, webResponse } from '../problem.js';
import { newMessageContent, readJsonBody } from '../request-body.js';
import {
  checkRunRequest,
  collectRun,
  logRunFailure,
  type RunEvent,
  runFailureReply,
} from '../run-json.js';
import { runOptionsFor } from '../run-options.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { closeStream, sseMessage, sseResponse } from '../sse.js';

async function readRunRequest(context: Context<ServerEnv>, deps: RouteDeps) {
  return checkRunRequest({
    body: await readJsonBody(context),
    deps,
    principal: context.get('principal'),
    onUser: (userId) => context.set('userId', userId),
  });
}

/** A run that threw, answered as `runFailureReply` says. */
function runFailure(
  context: Context<ServerEnv>,
  error: unknown,
  events: RunEvent[],
  signal: AbortSignal,
): Response {
  return webResponse(
    runFailureReply({
      error,
      events,
      signal,
      clientSignal: context.req.raw.signal,
      logger: context.get('logger'),
      requestId: context.get('requestId'),
    }),
  );
}

export function registerRunRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  // `node:http` serves `POST /run` itself (`fast-run.ts`) when the server listens; this route
  // answers `app.fetch` and `app.request` callers, alike.
  app.post('/run', async (context) => {
    const request = await readRunRequest(context, deps);
    const tracked = deps.inFlight.start(context.req.raw.signal);
    const events: RunEvent[] = [];
    try {
      await collectRun({ deps, request, signal: tracked.signal, events });
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
