/**
 * The inspector's routes that drive and trace: what the server offers the page (`/info`: page
 * size, whether it runs the agent), each model call of a session (`/calls`: request, answer,
 * tokens, time, tool calls), one call's request events, and the session's state. See
 * `docs/inspector.md`.
 */
import type { Hono } from 'hono';
import type { Event, SessionKey } from '../../events/types.js';
import { integerQuery } from '../integer-query.js';
import { badRequest, notFound } from '../problem.js';
import type { ServerEnv } from '../server-env.js';
import {
  type CallRequestResponse,
  type CallTraceEntry,
  type CallTraceResponse,
  DEFAULT_TIMELINE_LIMIT,
  INSPECTOR_API_PREFIX,
  type InspectorInfo,
  MAX_TIMELINE_LIMIT,
  type StateResponse,
  type TimelineEvent,
} from './api-types.js';
import { CallTrace, isRequestEvent } from './call-trace.js';
import { type InspectorDeps, inspectorKeyOf } from './inspector-deps.js';
import { agentOverheadTokens } from './next-request-view.js';
import { readHistory } from './session-history.js';
import { INSPECTOR_SESSION_PATH } from './session-routes.js';
import { toTimelineEvent } from './timeline-event.js';

export const INSPECTOR_INFO_PATH = `${INSPECTOR_API_PREFIX}/info`;

export function inspectorInfo(deps: InspectorDeps): InspectorInfo {
  const reason = deps.options.readOnlyReason;
  return {
    appName: deps.runner.appName,
    agentName: deps.runner.agent.name,
    canRun: reason === undefined,
    ...(reason !== undefined && { readOnlyReason: reason }),
    pageSize: DEFAULT_TIMELINE_LIMIT,
    maxPageSize: MAX_TIMELINE_LIMIT,
  };
}

async function traceOf(
  deps: InspectorDeps,
  key: SessionKey,
  signal: AbortSignal,
): Promise<CallTraceEntry[]> {
  const trace = new CallTrace({ overheadTokens: agentOverheadTokens(deps.runner.agent) });
  const { sessionService } = deps;
  for await (const page of readHistory({ sessionService, key, signal })) trace.add(page);
  return trace.result();
}

/** One stored event by `seq`, or `undefined`. */
async function eventAt(
  deps: InspectorDeps,
  key: SessionKey,
  seq: number,
  signal: AbortSignal,
): Promise<Event | undefined> {
  const page = await deps.sessionService.listEvents({
    ...key,
    afterSeq: seq - 1,
    limit: 1,
    signal,
  });
  const event = page.events[0];
  return event?.seq === seq ? event : undefined;
}

/** `?offset=&limit=` of a paged route: offset 0, limit `DEFAULT_TIMELINE_LIMIT` by default. */
function pageQuery(
  offsetText: string | undefined,
  limitText: string | undefined,
): { offset: number; limit: number } {
  const offset = integerQuery({ value: offsetText, name: 'offset', minimum: 0 }) ?? 0;
  const limit =
    integerQuery({ value: limitText, name: 'limit', minimum: 1, maximum: MAX_TIMELINE_LIMIT }) ??
    DEFAULT_TIMELINE_LIMIT;
  return { offset, limit };
}

export function registerCallRoutes(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const base = INSPECTOR_SESSION_PATH;

  app.get(INSPECTOR_INFO_PATH, (context) => context.json(inspectorInfo(deps)));

  app.get(`${base}/calls`, async (context) => {
    const key = inspectorKeyOf(context);
    const { offset, limit } = pageQuery(context.req.query('offset'), context.req.query('limit'));
    const order = context.req.query('order') ?? 'asc';
    if (order !== 'asc' && order !== 'desc') {
      throw badRequest(`order: expected asc or desc, got ${JSON.stringify(order)}`, 'order');
    }
    const calls = await traceOf(deps, key, context.req.raw.signal);
    const ordered = order === 'desc' ? [...calls].reverse() : calls;
    const body: CallTraceResponse = {
      calls: ordered.slice(offset, offset + limit),
      total: calls.length,
    };
    return context.json(body);
  });

  app.get(`${base}/calls/:call/request`, async (context) => {
    const key = inspectorKeyOf(context);
    const signal = context.req.raw.signal;
    const number =
      integerQuery({ value: context.req.param('call'), name: 'call', minimum: 1 }) ?? 1;
    const { offset, limit } = pageQuery(context.req.query('offset'), context.req.query('limit'));
    const calls = await traceOf(deps, key, signal);
    const entry = calls[number - 1];
    if (!entry) {
      throw notFound(
        `session '${key.sessionId}' has ${calls.length} model calls, not a call ${number}`,
        'call',
      );
    }
    const { request } = entry;
    const events: TimelineEvent[] = [];
    let index = 0;
    const keep = (event: Event) => {
      if (index >= offset && events.length < limit) events.push(toTimelineEvent(event));
      index++;
    };
    if (request.summarySeq !== null) {
      const summary = await eventAt(deps, key, request.summarySeq, signal);
      if (summary) keep(summary);
    }
    if (request.fromSeq !== null && request.toSeq !== null) {
      const { fromSeq, toSeq } = request;
      for await (const page of readHistory({
        sessionService: deps.sessionService,
        key,
        afterSeq: fromSeq - 1,
        signal,
      })) {
        for (const event of page) if (event.seq <= toSeq && isRequestEvent(event)) keep(event);
        const last = page[page.length - 1];
        if (!last || last.seq >= toSeq || events.length >= limit) break;
      }
    }
    const body: CallRequestResponse = {
      call: entry.call,
      events,
      total: request.eventCount,
      estimatedTokens: request.estimatedTokens,
    };
    return context.json(body);
  });

  app.get(`${base}/state`, async (context) => {
    const key = inspectorKeyOf(context);
    const signal = context.req.raw.signal;
    const session = await deps.sessionService.getSession({ ...key, signal });
    if (!session) throw notFound(`no session '${key.sessionId}'`, 'session');
    const setBySeq: Record<string, number> = {};
    for await (const page of readHistory({ sessionService: deps.sessionService, key, signal })) {
      for (const event of page) {
        for (const name of Object.keys(event.actions?.stateDelta ?? {})) setBySeq[name] = event.seq;
      }
    }
    for (const name of Object.keys(setBySeq)) {
      if (!(name in session.state)) delete setBySeq[name];
    }
    const body: StateResponse = {
      state: session.state,
      lastUpdateTime: session.lastUpdateTime,
      setBySeq,
    };
    return context.json(body);
  });
}
