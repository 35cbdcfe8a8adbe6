/**
 * The sessions list's `compactionCount` and the session header count the same thing: the trunk's
 * compactions. A workflow branch's summaries (`actions.branchCompaction`) are named apart in the
 * header ("· 3 branch summaries"), never added to the compactions figure.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the inspector's browser modules are plain JavaScript without types.
import { sessionCountsText } from '../../../assets/inspector/format.js';
import { createTriageSweep } from '../../../examples/triage-sweep/sweep.js';
import { Runner } from '../../runtime/turn/runner.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionsResponse, TimelineResponse } from './api-types.js';
import { APP, inspectorFixture } from './test-helpers/inspector-fixture.js';

const key = { appName: APP, userId: 'alice', sessionId: 'sweep' };
const countsText = sessionCountsText as (counts: {
  eventCount: number;
  compactions: Array<{ branch?: string }>;
}) => string;

describe('compaction counts: sessions list and session header', () => {
  it('agree on the trunk compactions; the header names branch summaries apart', async () => {
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
    // A manual trunk compaction too, so both figures are above zero.
    const stored = (await service.listEvents({ ...key, limit: 1000 })).events;
    const last = stored.at(-1)!;
    await service.appendCompaction({
      ...key,
      event: {
        id: 'trunk-compaction',
        invocationId: 'manual',
        author: 'user',
        timestamp: last.timestamp + 1,
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: 1,
            startTimestamp: stored[0]!.timestamp,
            endTimestamp: stored[0]!.timestamp,
            compactedContent: { role: 'model', parts: [{ text: 'asked to triage' }] },
            trigger: 'manual',
            tokensBefore: 10,
            tokensAfter: 5,
            summarizer: 'test',
          },
        },
      },
      expectedCheckpointSeq: null,
    });
    const branchSummaries = stored.filter((event) => event.actions.branchCompaction).length;
    expect(branchSummaries).toBeGreaterThan(0);

    const fixture = inspectorFixture({ service });
    const list = (await (
      await fixture.request('/inspector/api/sessions')
    ).json()) as SessionsResponse;
    const row = list.sessions.find((session) => session.sessionId === key.sessionId);
    expect(row?.compactionCount).toBe(1);
    const timeline = (await (
      await fixture.request(`/inspector/api/apps/${APP}/users/alice/sessions/sweep/timeline`)
    ).json()) as TimelineResponse;
    expect(timeline.compactions).toHaveLength(1 + branchSummaries);
    expect(countsText(timeline)).toBe(
      `${timeline.eventCount.toLocaleString('en-US')} events · ${row?.compactionCount} compaction · ${branchSummaries} branch summaries`,
    );
  });

  it('reads as before for a session without branches', () => {
    expect(countsText({ eventCount: 12, compactions: [{}, {}] })).toBe('12 events · 2 compactions');
    expect(countsText({ eventCount: 1, compactions: [{}, { branch: 'sweep.network' }] })).toBe(
      '1 event · 1 compaction · 1 branch summary',
    );
  });
});
