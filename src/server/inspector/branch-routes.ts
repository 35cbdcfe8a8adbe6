/**
 * The inspector's workflow branches (docs/workflows.md#inspector): `GET .../branches` lists a
 * session's branches with their event and compaction counts; `GET .../branch-timeline` pages the
 * history as one branch sees it, by position, with the `seq` of every row and the compactions
 * seen on that branch. (`GET .../view?branch=` is `session-routes.ts`'s, by `readBranchView`.)
 */
import type { Hono } from 'hono';
import { integerQuery } from '../integer-query.js';
import type { ServerEnv } from '../server-env.js';
import {
  type BranchesResponse,
  type BranchTimelineResponse,
  DEFAULT_TIMELINE_LIMIT,
  MAX_TIMELINE_LIMIT,
} from './api-types.js';
import { BranchIndex, branchRows, isRecordOnBranch } from './branch-index.js';
import { type InspectorDeps, inspectorKeyOf } from './inspector-deps.js';
import { readHistory } from './session-history.js';
import { INSPECTOR_SESSION_PATH } from './session-routes.js';
import { toTimelineEvent } from './timeline-event.js';

export function registerBranchRoutes(app: Hono<ServerEnv>, deps: InspectorDeps): void {
  const index = new BranchIndex(deps.sessionService);

  app.get(`${INSPECTOR_SESSION_PATH}/branches`, async (context) => {
    const key = inspectorKeyOf(context);
    const records = await index.read({ key, signal: context.req.raw.signal });
    const body: BranchesResponse = { branches: branchRows(records) };
    return context.json(body);
  });

  app.get(`${INSPECTOR_SESSION_PATH}/branch-timeline`, async (context) => {
    const key = inspectorKeyOf(context);
    const branch = context.req.query('branch') ?? '';
    const offset =
      integerQuery({ value: context.req.query('offset'), name: 'offset', minimum: 0 }) ?? 0;
    const limit =
      integerQuery({
        value: context.req.query('limit'),
        name: 'limit',
        minimum: 1,
        maximum: MAX_TIMELINE_LIMIT,
      }) ?? DEFAULT_TIMELINE_LIMIT;
    const signal = context.req.raw.signal;
    const scope = branch === '' ? {} : { branch };
    const shown = (await index.read({ key, signal })).filter((record) =>
      isRecordOnBranch(record, scope),
    );
    const seqs = shown.map((record) => record.seq);
    const wanted = new Set(seqs.slice(offset, offset + limit));
    const first = seqs[offset];
    const last = seqs[Math.min(offset + limit, seqs.length) - 1];
    const events: BranchTimelineResponse['events'] = [];
    if (first !== undefined && last !== undefined) {
      // The page's range of the history (siblings' events in between are skipped).
      for await (const page of readHistory({
        sessionService: deps.sessionService,
        key,
        afterSeq: first - 1,
        signal,
      })) {
        for (const event of page) {
          if (wanted.has(event.seq)) events.push(toTimelineEvent(event));
        }
        if ((page.at(-1)?.seq ?? last) >= last) break;
      }
    }
    const body: BranchTimelineResponse = {
      branch,
      events,
      total: seqs.length,
      seqs,
      compactions: shown.flatMap((record) => (record.span ? [record.span] : [])),
    };
    return context.json(body);
  });
}
