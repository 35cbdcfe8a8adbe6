import { describe, expect, it } from 'vitest';
import { estimateContentTokens } from '../../compaction/token-estimate.js';
import { activeView, assembleView } from '../../compaction/view.js';
import type { Content, Event } from '../../events/types.js';
import { isRecordedModelCall } from '../../runtime/replay/replay.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { agentOverheadTokens } from './next-request-view.js';
import { RequestChart } from './request-chart.js';
import {
  APP,
  buildSession,
  inspectorFixture,
  TWO_COMPACTIONS,
} from './test-helpers/inspector-fixture.js';

const key = { appName: APP, userId: 'alice', sessionId: 'two-compactions' };

function tokensOf(contents: Content[], overhead: number): number {
  return contents.reduce((total, content) => total + estimateContentTokens(content), overhead);
}

/** Each model call's request assembled from scratch: the view and the whole history before it. */
function slowChart(events: Event[], overhead: number) {
  const points = [];
  for (const event of events) {
    if (event.partial || !isRecordedModelCall(event)) continue;
    const before = events.filter((earlier) => earlier.seq < event.seq);
    const uncompacted = assembleView({
      tail: before.filter((earlier) => !earlier.actions.compaction),
    });
    points.push({
      call: points.length + 1,
      seq: event.seq,
      tokens: tokensOf(activeView({ events: before }).contents, overhead),
      uncompactedTokens: tokensOf(uncompacted.contents, overhead),
    });
  }
  return points;
}

describe('the request chart', () => {
  it('counts each model call with and without the two compactions, as the views assemble', async () => {
    const service = new InMemorySessionService();
    const events = await buildSession(service, key, TWO_COMPACTIONS);
    const chart = new RequestChart({ overheadTokens: 0 });
    chart.add(events);
    const result = chart.result(500);

    expect(result.threshold).toBe(500);
    expect(result.points).toEqual(slowChart(events, 0));
    // Model calls at seq 2, 4, 6, 9, 10, 12, 14, 17, 19 (the partial at 16 is none).
    expect(result.points.map((point) => point.seq)).toEqual([2, 4, 6, 9, 10, 12, 14, 17, 19]);
    expect(result.compactions).toEqual([
      { seq: 8, call: 4 },
      { seq: 15, call: 8 },
    ]);
    // By hand: the first request is the user's "question one" alone: 4 (content) +
    // ceil(11 letters / 4.6 + 1 space * 0.08) = 4 + 3.
    expect(result.points[0]).toEqual({ call: 1, seq: 2, tokens: 7, uncompactedTokens: 7 });
    // Before the first compaction both figures agree; after it the view is smaller.
    for (const point of result.points.slice(0, 3)) {
      expect(point.tokens).toBe(point.uncompactedTokens);
    }
    for (const point of result.points.slice(3)) {
      expect(point.tokens).toBeLessThan(point.uncompactedTokens);
    }
    // The call at seq 9: summary "The user asked about orreries and planets." (prefixed) and
    // "question three" in one user content.
    const summary = `Summary of the conversation so far:\nThe user asked about orreries and planets.`;
    expect(result.points[3]?.tokens).toBe(
      estimateContentTokens({
        role: 'user',
        parts: [{ text: summary }, { text: 'question three' }],
      }),
    );
  });

  it('adds the overhead to every point and is the same fed page by page', async () => {
    const service = new InMemorySessionService();
    const events = await buildSession(service, key, TWO_COMPACTIONS);
    const whole = new RequestChart({ overheadTokens: 25 });
    whole.add(events);
    const paged = new RequestChart({ overheadTokens: 25 });
    for (let start = 0; start < events.length; start += 4)
      paged.add(events.slice(start, start + 4));
    expect(paged.result(null)).toEqual(whole.result(null));
    expect(whole.result(null).points).toEqual(slowChart(events, 25));
  });

  it('GET .../chart answers the chart of the stored session with the agent overhead', async () => {
    const fixture = inspectorFixture({
      compaction: { tokenThreshold: 5000, eventRetentionSize: 2 },
    });
    const events = await buildSession(fixture.service, key, TWO_COMPACTIONS);
    const response = await fixture.request(
      `/inspector/api/apps/${APP}/users/alice/sessions/two-compactions/chart`,
    );
    expect(response.status).toBe(200);
    const overhead = agentOverheadTokens(fixture.server.runner.agent);
    expect(overhead).toBeGreaterThan(0);
    expect(await response.json()).toEqual({
      threshold: 5000,
      points: slowChart(events, overhead),
      compactions: [
        { seq: 8, call: 4 },
        { seq: 15, call: 8 },
      ],
    });
  });

  it('is linear: a 10,000-event session costs each event once', async () => {
    const events: Event[] = [];
    let seq = 0;
    const at = (event: Omit<Event, 'seq' | 'id' | 'timestamp' | 'actions'> & Partial<Event>) =>
      events.push({ id: `e${seq}`, timestamp: seq, actions: {}, ...event, seq: ++seq });
    for (let turn = 0; turn < 2500; turn++) {
      at({
        author: 'user',
        invocationId: `i${turn}`,
        content: { role: 'user', parts: [{ text: `question ${turn}` }] },
      });
      at({
        author: 'assistant',
        invocationId: `i${turn}`,
        content: {
          role: 'model',
          parts: [{ functionCall: { id: `c${turn}`, name: 'lookup', args: { turn } } }],
        },
      });
      at({
        author: 'assistant',
        invocationId: `i${turn}`,
        content: {
          role: 'user',
          parts: [{ functionResponse: { id: `c${turn}`, name: 'lookup', response: { turn } } }],
        },
      });
      at({
        author: 'assistant',
        invocationId: `i${turn}`,
        content: { role: 'model', parts: [{ text: `answer ${turn}` }] },
      });
    }
    const chart = new RequestChart({ overheadTokens: 0 });
    // Counted, not timed: every part is estimated through a getter we count.
    let reads = 0;
    const counted = events.map((event) => ({
      ...event,
      get content() {
        reads++;
        return event.content;
      },
    }));
    chart.add(counted);
    const { points } = chart.result(null);
    expect(points).toHaveLength(5000);
    expect(points.at(-1)?.uncompactedTokens).toBe(points.at(-1)?.tokens);
    // A constant number of reads per event, never one per event per call (that is 25 million).
    expect(reads).toBeLessThan(events.length * 10);
  });
});
