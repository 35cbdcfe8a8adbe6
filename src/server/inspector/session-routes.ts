/**
 * The inspector's routes on one session: the timeline (paged), one stored event, the next
 * request's events, and the request-size chart. The page never downloads the whole history:
 * whole-history reads (compactions, chart) happen here, page by page. Each route's first
 * `listEvents` is its existence check (a missing session is a `SessionNotFoundError`: a 404).
 */
import type { Hono } from 'hono';
import { eventsOnBranch } from '../../compaction/branch-view.js';
import { SpendPrices } from '../../runtime/turn/live-spend.js';
import { integerQuery } from '../integer-query.js';
import { notFound } from '../problem.js';
import type { ServerEnv } from '../server-env.js';
import {
  type ChartResponse,
  DEFAULT_TIMELINE_LIMIT,
  INSPECTOR_API_PREFIX,
  MAX_TIMELINE_LIMIT,
  type TimelineResponse,
  type ViewResponse,
} from './api-types.js';
import { ChartCostCollector } from './chart-cost.js';
import { type InspectorDeps, inspectorKeyOf, requireSession } from './inspector-deps.js';
import { agentOverheadTokens, readBranchView } from './next-request-view.js';
import { NextRequestViews } from './next-request-views.js';
import { RequestChart } from './request-chart.js';
import { readHistory } from './session-history.js';
import { toTimelineEvent } from './timeline-event.js';

export const INSPECTOR_SESSION_PATH = `${INSPECTOR_API_PREFIX}/apps/:app/users/:user/sessions/:session`;

/** The served Runner's token threshold, or `null` when its token trigger is off. */
export function thresholdOf(deps: InspectorDeps): number | null {
  return deps.runner.compactionConfig?.tokenThreshold ?? null;
}

export function registerSessionRoutes(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const { sessionService } = deps;
  const base = INSPECTOR_SESSION_PATH;
  const views = new NextRequestViews({ sessionService, agent: deps.runner.agent });

  app.get(`${base}/timeline`, async (context) => {
    const key = inspectorKeyOf(context);
    const afterSeq =
      integerQuery({ value: context.req.query('afterSeq'), name: 'afterSeq', minimum: 0 }) ?? 0;
    const limit =
      integerQuery({
        value: context.req.query('limit'),
        name: 'limit',
        minimum: 1,
        maximum: MAX_TIMELINE_LIMIT,
      }) ?? DEFAULT_TIMELINE_LIMIT;
    const signal = context.req.raw.signal;
    // `?branch=sweep.a`: what that branch sees (docs/workflows.md#branch-views); `?branch=`: the
    // trunk's. Paging stays by stored `seq`, so a filtered page may hold fewer events.
    const branch = context.req.query('branch');
    const page = await sessionService.listEvents({ ...key, afterSeq, limit, signal });
    const known = await deps.compactions.read({ key, signal });
    const last = page.events[page.events.length - 1];
    const shown =
      branch === undefined
        ? page.events
        : eventsOnBranch(page.events, { branch: branch === '' ? undefined : branch });
    const body: TimelineResponse = {
      events: shown.map(toTimelineEvent),
      nextAfterSeq: page.nextCursor !== undefined && last ? last.seq : null,
      eventCount: known.eventCount,
      compactions: afterSeq === 0 ? known.spans : [],
    };
    return context.json(body);
  });

  app.get(`${base}/events/:seq`, async (context) => {
    const key = inspectorKeyOf(context);
    const seq = integerQuery({ value: context.req.param('seq'), name: 'seq', minimum: 1 }) ?? 0;
    const signal = context.req.raw.signal;
    const page = await sessionService.listEvents({ ...key, afterSeq: seq - 1, limit: 1, signal });
    const event = page.events[0];
    if (event?.seq !== seq) {
      throw notFound(`session '${key.sessionId}' has no event with seq ${seq}`, 'seq');
    }
    return context.json(event);
  });

  app.get(`${base}/view`, async (context) => {
    const key = inspectorKeyOf(context);
    const offset =
      integerQuery({ value: context.req.query('offset'), name: 'offset', minimum: 0 }) ?? 0;
    const limit = integerQuery({
      value: context.req.query('limit'),
      name: 'limit',
      minimum: 1,
      maximum: MAX_TIMELINE_LIMIT,
    });
    // `?branch=`: that workflow branch's next request (read afresh; `''`: the trunk's).
    // Otherwise remembered per session: a page costs one event read and the page's own events.
    const branch = context.req.query('branch');
    const signal = context.req.raw.signal;
    if (branch !== undefined) await requireSession(deps, key, signal);
    const view =
      branch === undefined
        ? await views.read({ key, signal })
        : await readBranchView({ sessionService, agent: deps.runner.agent, key, branch, signal });
    const body: ViewResponse = {
      events: view.events
        .slice(offset, limit === undefined ? undefined : offset + limit)
        .map(toTimelineEvent),
      total: view.events.length,
      tokens: view.tokens,
      threshold: thresholdOf(deps),
    };
    return context.json(body);
  });

  // One catalog lookup per model for the server's life (the catalog loads at the first).
  const chartPrices = new SpendPrices();
  app.get(`${base}/chart`, async (context) => {
    const key = inspectorKeyOf(context);
    const signal = context.req.raw.signal;
    const chart = new RequestChart({ overheadTokens: agentOverheadTokens(deps.runner.agent) });
    const cost = new ChartCostCollector();
    for await (const page of readHistory({ sessionService, key, signal })) {
      chart.add(page);
      cost.add(page);
    }
    const priced = await cost.result({ agent: deps.runner.agent, prices: chartPrices });
    const body: ChartResponse = {
      ...chart.result(thresholdOf(deps)),
      ...(priced && { cost: priced }),
    };
    return context.json(body);
  });
}
