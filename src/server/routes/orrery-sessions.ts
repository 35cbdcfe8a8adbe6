/**
 * orrery's own session routes beside ADK's: `view` (what the next request would hold; a
 * workflow branch's with `?branch=`), `events`
 * (the full history, paged by `seq`) and `compact` (a manual compaction, under the lease).
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import { Compactor } from '../../runtime/compaction/compactor.js';
import { integerQuery } from '../integer-query.js';
import { describeNextRequest } from '../next-request.js';
import { notFound } from '../problem.js';
import { parseBody, readJsonBody } from '../request-body.js';
import type { RouteDeps, ServerEnv } from '../server-env.js';
import { sessionKeyOf } from '../session-access.js';

export const MAX_EVENTS_PAGE = 1000;

const CompactRequestSchema = z
  .looseObject({
    retention: z.int('must be an integer').min(0, 'must be >= 0').optional(),
  })
  .optional();

export function registerOrrerySessionRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  const { sessionService } = deps;
  const base = '/apps/:app/users/:user/sessions/:session';

  const requireSession = async (key: ReturnType<typeof sessionKeyOf>, signal: AbortSignal) => {
    const session = await sessionService.getSession({ ...key, signal });
    if (!session) throw notFound(`session '${key.sessionId}' not found`, 'sessionId');
    return session;
  };

  app.get(`${base}/view`, async (context) => {
    const key = sessionKeyOf(context, deps);
    const signal = context.req.raw.signal;
    await requireSession(key, signal);
    // `?branch=sweep.network`: the view that branch's next request would see; `?branch=`: the
    // trunk's, scoped (docs/workflows.md#branch-views). Absent: the whole session's view.
    const branch = context.req.query('branch');
    return context.json(
      await describeNextRequest({ sessionService, agent: deps.runner.agent, key, branch, signal }),
    );
  });

  app.get(`${base}/events`, async (context) => {
    const key = sessionKeyOf(context, deps);
    const afterSeq = integerQuery({
      value: context.req.query('afterSeq'),
      name: 'afterSeq',
      minimum: 0,
    });
    const limit =
      integerQuery({
        value: context.req.query('limit'),
        name: 'limit',
        minimum: 1,
        maximum: MAX_EVENTS_PAGE,
      }) ?? 100;
    const signal = context.req.raw.signal;
    await requireSession(key, signal);
    const page = await sessionService.listEvents({ ...key, afterSeq, limit, signal });
    return context.json(page);
  });

  app.post(`${base}/compact`, async (context) => {
    const key = sessionKeyOf(context, deps);
    const body = parseBody(CompactRequestSchema, await readJsonBody(context, { optional: true }));
    const signal = context.req.raw.signal;
    await requireSession(key, signal);
    const summarizer = deps.manualSummarizer;
    // The Runner's settings (its retention), or the defaults when its compaction is off.
    const config =
      deps.runner.compactionConfig ??
      createEventsCompactionConfig({ env: {}, enabled: true }) ??
      {};
    const compactor = new Compactor({
      sessionService,
      config: { ...config, summarizer },
      summarizer,
    });
    // Not while a run holds the session: compacted under its lease, like `orrery compact`.
    const lease = await sessionService.acquireLease?.({ ...key, signal });
    try {
      const report = await compactor.compact({
        ...key,
        trigger: 'manual',
        force: true,
        retention: body?.retention === undefined ? undefined : { events: body.retention },
        signal: lease?.signal ?? signal,
      });
      const { event: _event, error, ...rest } = report;
      return context.json({ ...rest, ...(error === undefined ? {} : { error: String(error) }) });
    } finally {
      await lease?.release();
    }
  });
}
