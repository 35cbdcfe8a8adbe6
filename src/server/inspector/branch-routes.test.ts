/**
 * The inspector's branch routes over a real triage sweep (three specialists on their branches,
 * each compacting on its own, then the lead): `GET .../branches` counts each branch's events and
 * summaries; `GET .../branch-timeline` pages exactly what `eventsOnBranch` shows, by position,
 * with the branch's compactions; `GET .../view?branch=` is that branch's next request.
 */
import { describe, expect, it } from 'vitest';
import { createTriageSweep } from '../../../examples/triage-sweep/sweep.js';
import { eventsOnBranch } from '../../compaction/branch-view.js';
import type { Event } from '../../events/types.js';
import { Runner } from '../../runtime/turn/runner.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type {
  BranchesResponse,
  BranchTimelineResponse,
  TimelineResponse,
  ViewResponse,
} from './api-types.js';
import { APP, inspectorFixture } from './test-helpers/inspector-fixture.js';

const key = { appName: APP, userId: 'alice', sessionId: 'sweep' };
const base = `/inspector/api/apps/${APP}/users/alice/sessions/sweep`;

async function sweepFixture() {
  const sweep = createTriageSweep({ pages: 4 });
  const service = new InMemorySessionService();
  await service.createSession(key);
  const runner = new Runner({
    appName: APP,
    agent: sweep.agent,
    sessionService: service,
    compaction: sweep.compaction,
    summarizer: sweep.summarizer,
    logger: false,
  });
  for await (const _event of runner.run({ ...key, newMessage: 'triage' })) {
    // stored as they come
  }
  const stored: Event[] = (await service.listEvents({ ...key, limit: 1000 })).events;
  const fixture = inspectorFixture({ service });
  const read = async <T>(path: string): Promise<T> => {
    const response = await fixture.request(`${base}${path}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as T;
  };
  return { sweep, stored, read, fixture };
}

const BRANCHES = ['sweep.database', 'sweep.deploys', 'sweep.network'];

describe('the inspector branch routes', () => {
  it('lists the branches with their event and compaction counts', async () => {
    const { stored, read } = await sweepFixture();
    const { branches } = await read<BranchesResponse>('/branches');
    expect(branches.map((row) => row.branch)).toEqual(['', ...BRANCHES]);
    for (const row of branches) {
      const own = stored.filter((event) => (event.branch ?? '') === row.branch);
      expect(row.events).toBe(own.length);
      expect(row.compactions).toBe(
        own.filter((event) => event.actions.compaction || event.actions.branchCompaction).length,
      );
      if (row.branch !== '') expect(row.compactions).toBeGreaterThan(0);
    }
    expect(branches.reduce((total, row) => total + row.events, 0)).toBe(stored.length);
  });

  it("pages a branch's timeline by position: its own events, never a sibling's", async () => {
    const { stored, read } = await sweepFixture();
    for (const branch of ['', ...BRANCHES]) {
      const expected = eventsOnBranch(stored, { branch: branch === '' ? undefined : branch });
      const query = `?branch=${encodeURIComponent(branch)}`;
      const whole = await read<BranchTimelineResponse>(`/branch-timeline${query}&limit=1000`);
      expect(whole.seqs).toEqual(expected.map((event) => event.seq));
      expect(whole.total).toBe(expected.length);
      expect(whole.events.map((event) => event.seq)).toEqual(whole.seqs);
      // Paged by position: 5 rows at a time give the same rows.
      const paged: number[] = [];
      for (let offset = 0; offset < whole.total; offset += 5) {
        const page = await read<BranchTimelineResponse>(
          `/branch-timeline${query}&offset=${offset}&limit=5`,
        );
        expect(page.events.length).toBe(Math.min(5, whole.total - offset));
        paged.push(...page.events.map((event) => event.seq));
      }
      expect(paged).toEqual(whole.seqs);
      // Its compactions: its own summaries (the trunk has none here), each drawn on its branch.
      const summaries = stored.filter(
        (event) => event.actions.branchCompaction && (event.branch ?? '') === branch,
      );
      expect(whole.compactions.map((span) => span.seq)).toEqual(summaries.map((e) => e.seq));
      for (const span of whole.compactions) expect(span.branch).toBe(branch);
      for (const event of whole.events) {
        if (branch === '' || event.branch === undefined) continue;
        expect(event.branch).toBe(branch);
      }
    }
    // The unfiltered timeline's spans include every branch summary, labelled with its branch.
    const all = await read<TimelineResponse>('/timeline');
    expect(all.compactions.length).toBe(
      stored.filter((event) => event.actions.branchCompaction).length,
    );
    expect(new Set(all.compactions.map((span) => span.branch))).toEqual(new Set(BRANCHES));
  });

  it("answers a branch's next request in .../view?branch=", async () => {
    const { sweep, read, stored } = await sweepFixture();
    for (const name of sweep.specialistModels.keys()) {
      const view = await read<ViewResponse>(`/view?branch=sweep.${name}`);
      expect(view.total).toBe(view.events.length);
      expect(view.events[0]?.kind).toBe('compaction');
      const seen = new Set(view.events.map((event) => event.seq));
      for (const event of stored) {
        const other = event.branch !== undefined && event.branch !== `sweep.${name}`;
        if (other) expect(seen.has(event.seq), `#${event.seq} ${event.branch}`).toBe(false);
      }
      expect(view.tokens).toBeGreaterThan(0);
    }
    // The trunk's (`?branch=`): the user's message and each final answer, no page.
    const trunk = await read<ViewResponse>('/view?branch=');
    expect(trunk.events.some((event) => event.author === 'user')).toBe(true);
    expect(trunk.events.filter((event) => event.branch !== undefined)).toHaveLength(3);
    expect(trunk.events.every((event) => event.kind !== 'tool-result')).toBe(true);
  });
});
