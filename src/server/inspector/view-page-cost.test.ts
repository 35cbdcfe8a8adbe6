import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Event } from '../../events/types.js';
import type { ChartResponse, ViewResponse } from './api-types.js';
import {
  APP,
  buildSession,
  type InspectorFixture,
  inspectorFixture,
  type Step,
} from './test-helpers/inspector-fixture.js';

// Every conversion and estimate is counted, not timed: what a page request does, not how fast.
const counts = vi.hoisted(() => ({ timeline: 0, eventTokens: 0, contentTokens: 0, parts: 0 }));

vi.mock('./timeline-event.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./timeline-event.js')>();
  return {
    ...actual,
    toTimelineEvent: (...args: Parameters<typeof actual.toTimelineEvent>) => {
      counts.timeline++;
      return actual.toTimelineEvent(...args);
    },
  };
});

vi.mock('../../compaction/token-estimate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../compaction/token-estimate.js')>();
  return {
    ...actual,
    estimateEventTokens: (...args: Parameters<typeof actual.estimateEventTokens>) => {
      counts.eventTokens++;
      return actual.estimateEventTokens(...args);
    },
    estimateContentTokens: (...args: Parameters<typeof actual.estimateContentTokens>) => {
      counts.contentTokens++;
      return actual.estimateContentTokens(...args);
    },
    estimatePartTokens: (...args: Parameters<typeof actual.estimatePartTokens>) => {
      counts.parts++;
      return actual.estimatePartTokens(...args);
    },
  };
});

const EVENTS = 10_000;
const PAGE = 50;
const key = { appName: APP, userId: 'alice', sessionId: 'long' };
const viewPath = `/inspector/api/apps/${APP}/users/alice/sessions/long/view`;

/** A never-compacted session: user, call, result, answer, over and over. */
function longSession(): Step[] {
  const steps: Step[] = [];
  for (let turn = 0; steps.length < EVENTS; turn++) {
    steps.push({ user: `question ${turn}` });
    steps.push({ call: { id: `c${turn}`, name: 'lookup', args: { turn } } });
    steps.push({ result: { id: `c${turn}`, name: 'lookup', response: { turn } } });
    steps.push({ model: `answer ${turn}` });
  }
  return steps.slice(0, EVENTS);
}

async function json<T>(response: Promise<Response>): Promise<T> {
  const resolved = await response;
  expect(resolved.status, await resolved.clone().text()).toBe(200);
  return (await resolved.json()) as T;
}

function resetCounts(): void {
  counts.timeline = 0;
  counts.eventTokens = 0;
  counts.contentTokens = 0;
  counts.parts = 0;
}

describe('GET .../view on a 10,000-event session', () => {
  let fixture: InspectorFixture;

  beforeAll(async () => {
    fixture = inspectorFixture();
    await buildSession(fixture.service, key, longSession());
  }, 120_000);

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('converts and estimates only the page once the view is known', async () => {
    const loadView = vi.spyOn(fixture.service, 'loadView');
    resetCounts();
    const first = await json<ViewResponse>(
      fixture.request(`${viewPath}?offset=5000&limit=${PAGE}`),
    );
    expect(first.events.map((event) => event.seq)[0]).toBe(5001);
    expect(first.total).toBe(EVENTS);
    // The first page assembles the view once; only its own events become TimelineEvents.
    expect(loadView).toHaveBeenCalledTimes(1);
    expect(counts.timeline).toBe(PAGE);

    resetCounts();
    loadView.mockClear();
    const listEvents = vi.spyOn(fixture.service, 'listEvents');
    const next = await json<ViewResponse>(
      fixture.request(`${viewPath}?offset=${EVENTS - PAGE}&limit=${PAGE}`),
    );
    expect(next.events).toHaveLength(PAGE);
    expect(next.events[PAGE - 1]?.seq).toBe(EVENTS);
    expect([next.total, next.tokens]).toEqual([first.total, first.tokens]);
    // O(page): no view load, no content re-estimated, one event read, one estimate per row.
    expect(loadView).not.toHaveBeenCalled();
    expect(listEvents).toHaveBeenCalledTimes(1);
    expect(counts.contentTokens).toBe(0);
    expect(counts.timeline).toBe(PAGE);
    expect(counts.eventTokens).toBe(PAGE);

    // The same tokens as the uncached count of GET .../view.
    const adk = await json<{ estimatedTokens: number }>(
      fixture.request(`/apps/${APP}/users/alice/sessions/long/view`),
    );
    expect(first.tokens).toBe(adk.estimatedTokens);
  }, 120_000);

  it('draws the chart without a TimelineEvent', async () => {
    resetCounts();
    const chart = await json<ChartResponse>(
      fixture.request(`/inspector/api/apps/${APP}/users/alice/sessions/long/chart`),
    );
    // One point per model call: the call and the answer of every turn.
    expect(chart.points).toHaveLength(EVENTS / 2);
    expect(counts.timeline).toBe(0);
  }, 120_000);

  it('reads and estimates only what was appended, then agrees with a fresh count', async () => {
    const before = await json<ViewResponse>(fixture.request(`${viewPath}?limit=1`));
    await buildSession(fixture.service, { ...key, sessionId: 'unrelated' }, [{ user: 'hi' }]);
    const append = (event: Omit<Event, 'seq'>) => fixture.service.appendEvent({ ...key, event });
    const common = { invocationId: 'later', timestamp: 1_900_000_000, actions: {} };
    await append({
      ...common,
      id: 'appended-question',
      author: 'user',
      content: { role: 'user', parts: [{ text: 'one more question' }] },
    });
    await append({
      ...common,
      id: 'appended-call',
      author: 'assistant',
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'late', name: 'lookup', args: {} } }],
      },
    });
    const loadView = vi.spyOn(fixture.service, 'loadView');
    resetCounts();
    const after = await json<ViewResponse>(fixture.request(`${viewPath}?offset=${EVENTS}`));
    // Two events read and estimated, not the 10,000 before them.
    expect(loadView).not.toHaveBeenCalled();
    expect(counts.parts).toBe(2);
    // The agent's instruction, once; no content of the view.
    expect(counts.contentTokens).toBe(1);
    expect(after.total).toBe(before.total + 2);
    expect(after.tokens).toBeGreaterThan(before.tokens);
    expect(after.events.map((event) => event.preview)).toEqual(['one more question', 'lookup({})']);
    const adk = await json<{ estimatedTokens: number }>(
      fixture.request(`/apps/${APP}/users/alice/sessions/long/view`),
    );
    expect(after.tokens).toBe(adk.estimatedTokens);
  }, 120_000);

  it('loads the view anew once a compaction is appended', async () => {
    const before = await json<ViewResponse>(fixture.request(`${viewPath}?limit=1`));
    await buildSession(fixture.service, { ...key, sessionId: 'compacted' }, []);
    await fixture.service.appendCompaction({
      ...key,
      expectedCheckpointSeq: null,
      event: {
        id: 'checkpoint',
        invocationId: 'compaction',
        author: 'assistant',
        timestamp: 1_900_000_001,
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: EVENTS,
            startTimestamp: 0,
            endTimestamp: 0,
            compactedContent: { role: 'model', parts: [{ text: 'Ten thousand events.' }] },
            trigger: 'token_threshold',
            tokensBefore: before.tokens,
            tokensAfter: 10,
            summarizer: 'digest',
          },
        },
      },
    });
    const loadView = vi.spyOn(fixture.service, 'loadView');
    const after = await json<ViewResponse>(fixture.request(viewPath));
    expect(loadView).toHaveBeenCalledTimes(1);
    expect(after.events.map((event) => event.kind)).toEqual(['compaction', 'user', 'tool-call']);
    const adk = await json<{ estimatedTokens: number }>(
      fixture.request(`/apps/${APP}/users/alice/sessions/long/view`),
    );
    expect(after.tokens).toBe(adk.estimatedTokens);
  }, 120_000);

  it('does not answer a deleted session view for one created again under its id', async () => {
    const again = { ...key, sessionId: 'again' };
    const path = `/inspector/api/apps/${APP}/users/alice/sessions/again/view`;
    await buildSession(fixture.service, again, [{ user: 'first life' }]);
    const first = await json<ViewResponse>(fixture.request(path));
    await fixture.service.deleteSession(again);
    expect((await fixture.request(path)).status).toBe(404);
    await buildSession(fixture.service, again, [{ user: 'second life' }]);
    const second = await json<ViewResponse>(fixture.request(path));
    expect(first.events.map((event) => event.preview)).toEqual(['first life']);
    expect(second.events.map((event) => event.preview)).toEqual(['second life']);
  });
});
