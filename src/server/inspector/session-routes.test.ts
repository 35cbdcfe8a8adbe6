import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import type {
  SessionsResponse,
  TimelineEvent,
  TimelineResponse,
  ViewResponse,
} from './api-types.js';
import {
  APP,
  buildSession,
  inspectorFixture,
  TOKEN_ALICE,
  TOKEN_BOB,
  TWO_COMPACTIONS,
} from './test-helpers/inspector-fixture.js';

const api = '/inspector/api';
const sessionPath = (user: string, session: string, app = APP) =>
  `${api}/apps/${app}/users/${user}/sessions/${session}`;

// Stores stamp appends with the clock: each session of `populate` is written a second later.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-06-01T00:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

function tick(): void {
  vi.setSystemTime(Date.now() + 1000);
}

/** alice: two sessions in `demo`, one in `other`; bob and carol one each; oldest first. */
async function populate(service: SessionService) {
  tick();
  await buildSession(service, { appName: APP, userId: 'alice', sessionId: 'a1' }, [
    { user: 'first' },
    { model: 'one' },
  ]);
  tick();
  await buildSession(service, { appName: APP, userId: 'bob', sessionId: 'b1' }, [
    { user: 'bob asks' },
  ]);
  tick();
  await buildSession(service, { appName: 'other', userId: 'alice', sessionId: 'a-other' }, [
    { user: 'elsewhere' },
  ]);
  tick();
  await buildSession(service, { appName: APP, userId: 'carol', sessionId: 'c1' }, [
    { user: 'carol asks' },
  ]);
  tick();
  await buildSession(service, { appName: APP, userId: 'alice', sessionId: 'a2' }, TWO_COMPACTIONS);
}

async function json<T>(response: Response | Promise<Response>): Promise<T> {
  const resolved = await response;
  expect(resolved.status, await resolved.clone().text()).toBe(200);
  return (await resolved.json()) as T;
}

describe('GET /inspector/api/sessions', () => {
  it('lists every app and user newest first, with counts and view tokens', async () => {
    const fixture = inspectorFixture();
    await populate(fixture.service);
    const body = await json<SessionsResponse>(fixture.request(`${api}/sessions`));
    expect(body.sessions.map((row) => row.sessionId)).toEqual(['a2', 'c1', 'a-other', 'b1', 'a1']);
    expect(body.apps).toEqual([APP, 'other']);
    expect(body.users).toEqual(['alice', 'bob', 'carol']);
    expect(body.partial).toBeUndefined();
    const a2 = body.sessions[0];
    expect(a2).toMatchObject({ appName: APP, userId: 'alice', eventCount: 19, compactionCount: 2 });
    // The same estimate as GET .../view.
    const view = (await (
      await fixture.request(`/apps/${APP}/users/alice/sessions/a2/view`)
    ).json()) as { estimatedTokens: number };
    expect(a2?.viewTokens).toBe(view.estimatedTokens);
  });

  it('counts the view again once the session changed', async () => {
    const fixture = inspectorFixture();
    const key = { appName: APP, userId: 'alice', sessionId: 'changing' };
    await buildSession(fixture.service, key, [{ user: 'short' }]);
    const before = await json<SessionsResponse>(fixture.request(`${api}/sessions`));
    tick();
    await fixture.service.appendEvent({
      ...key,
      event: {
        id: 'more',
        invocationId: 'two',
        author: 'user',
        timestamp: 2,
        actions: {},
        content: { role: 'user', parts: [{ text: 'a much longer message than the first one' }] },
      },
    });
    const after = await json<SessionsResponse>(fixture.request(`${api}/sessions`));
    expect(after.sessions[0]?.viewTokens).toBeGreaterThan(before.sessions[0]?.viewTokens ?? 0);
    const view = (await (
      await fixture.request(`/apps/${APP}/users/alice/sessions/changing/view`)
    ).json()) as { estimatedTokens: number };
    expect(after.sessions[0]?.viewTokens).toBe(view.estimatedTokens);
  });

  it('filters by app and user and limits, offering every app and user in the filters', async () => {
    const fixture = inspectorFixture();
    await populate(fixture.service);
    const byApp = await json<SessionsResponse>(fixture.request(`${api}/sessions?app=other`));
    expect(byApp.sessions.map((row) => row.sessionId)).toEqual(['a-other']);
    expect(byApp.apps).toEqual([APP, 'other']);
    const byUser = await json<SessionsResponse>(fixture.request(`${api}/sessions?user=alice`));
    expect(byUser.sessions.map((row) => row.sessionId)).toEqual(['a2', 'a-other', 'a1']);
    const limited = await json<SessionsResponse>(fixture.request(`${api}/sessions?limit=2`));
    expect(limited.sessions.map((row) => row.sessionId)).toEqual(['a2', 'c1']);
    expect(limited.users).toEqual(['alice', 'bob', 'carol']);
  });

  it("shows a token only its users' sessions", async () => {
    const fixture = inspectorFixture({ tokens: true });
    await populate(fixture.service);
    const alice = await json<SessionsResponse>(
      fixture.request(`${api}/sessions`, { token: TOKEN_ALICE }),
    );
    expect(alice.sessions.map((row) => row.sessionId)).toEqual(['a2', 'a-other', 'a1']);
    expect(alice.users).toEqual(['alice']);
    const bob = await json<SessionsResponse>(
      fixture.request(`${api}/sessions`, { token: TOKEN_BOB }),
    );
    expect(bob.sessions.map((row) => row.sessionId)).toEqual(['c1', 'b1']);
    const asAlice = await json<SessionsResponse>(
      fixture.request(`${api}/sessions?user=alice`, { token: TOKEN_BOB }),
    );
    expect(asAlice.sessions).toEqual([]);
    expect((await fixture.request(`${api}/sessions`)).status).toBe(401);
  });

  it('falls back to listSessions per user in the served app when the store cannot list all', async () => {
    const inner = new InMemorySessionService();
    const { listAllSessions: _listAll, ...rest } = Object.fromEntries(
      [
        'createSession',
        'getSession',
        'loadView',
        'listEvents',
        'appendEvent',
        'appendCompaction',
        'listSessions',
        'deleteSession',
      ].map((name) => [
        name,
        (inner as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!.bind(inner),
      ]),
    ) as Record<string, unknown>;
    const service = rest as unknown as SessionService;
    expect(service.listAllSessions).toBeUndefined();
    const fixture = inspectorFixture({ service, tokens: true });
    await populate(inner);
    const alice = await json<SessionsResponse>(
      fixture.request(`${api}/sessions`, { token: TOKEN_ALICE }),
    );
    expect(alice.partial).toBe(true);
    expect(alice.sessions.map((row) => [row.sessionId, row.compactionCount])).toEqual([
      ['a2', null],
      ['a1', null],
    ]);
    const other = await json<SessionsResponse>(
      fixture.request(`${api}/sessions?app=other`, { token: TOKEN_ALICE }),
    );
    expect(other.sessions.map((row) => row.sessionId)).toEqual(['a-other']);
  });

  it('refuses a bad limit naming it', async () => {
    const fixture = inspectorFixture();
    for (const limit of ['0', '201', 'ten', '']) {
      const response = await fixture.request(`${api}/sessions?limit=${limit}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ field: 'limit' });
    }
  });
});

describe('GET .../timeline', () => {
  it('pages the history by seq, with every compaction on the first page', async () => {
    const fixture = inspectorFixture();
    await populate(fixture.service);
    const first = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'a2')}/timeline?limit=8`),
    );
    expect(first.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(first.nextAfterSeq).toBe(8);
    expect(first.eventCount).toBe(19);
    expect(first.compactions).toEqual([
      {
        seq: 8,
        startSeq: 1,
        endSeq: 6,
        trigger: 'token_threshold',
        tokensBefore: 1000,
        tokensAfter: 100,
        summarizer: 'digest',
        summary: 'The user asked about orreries and planets.',
      },
      expect.objectContaining({ seq: 15, startSeq: 1, endSeq: 13 }),
    ]);
    const kinds = first.events.map((event) => event.kind);
    expect(kinds).toEqual([
      'user',
      'tool-call',
      'tool-result',
      'model',
      'user',
      'model',
      'user',
      'compaction',
    ]);
    expect(first.events[1]).toMatchObject({
      author: 'assistant',
      toolNames: ['lookup'],
      preview: 'lookup({"word":"orrery"})',
    });

    const second = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'a2')}/timeline?afterSeq=8&limit=8`),
    );
    expect(second.events.map((event) => event.seq)).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    expect(second.compactions).toEqual([]);
    expect(second.events.find((event) => event.seq === 16)).toMatchObject({ partial: true });
    const last = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'a2')}/timeline?afterSeq=16`),
    );
    expect(last.events.map((event) => event.seq)).toEqual([17, 18, 19]);
    expect(last.nextAfterSeq).toBeNull();
  });

  it('cuts previews at 400 characters and counts every character', async () => {
    const fixture = inspectorFixture();
    const long = 'x'.repeat(5000);
    await buildSession(fixture.service, { appName: APP, userId: 'alice', sessionId: 'long' }, [
      { user: long },
    ]);
    const body = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'long')}/timeline`),
    );
    const event = body.events[0] as TimelineEvent;
    expect(event.preview).toHaveLength(400);
    expect(event.chars).toBe(5000);
    expect(event.tokens).toBeGreaterThan(1000);
  });

  it('sees appends since its last read (the compaction index is incremental)', async () => {
    const fixture = inspectorFixture();
    const key = { appName: APP, userId: 'alice', sessionId: 'growing' };
    await buildSession(fixture.service, key, [{ user: 'one' }, { model: 'two' }]);
    const before = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'growing')}/timeline`),
    );
    expect([before.eventCount, before.compactions.length]).toEqual([2, 0]);
    await fixture.service.appendCompaction({
      ...key,
      expectedCheckpointSeq: null,
      event: {
        id: 'compaction',
        invocationId: 'x',
        author: 'assistant',
        timestamp: 1,
        actions: {
          compaction: {
            startSeq: 1,
            endSeq: 2,
            startTimestamp: 0,
            endTimestamp: 0,
            compactedContent: { role: 'model', parts: [{ text: 'Counted to two.' }] },
            trigger: 'manual',
            tokensBefore: 50,
            tokensAfter: 10,
            summarizer: 'google:gemini-2.5-flash',
            fallback: { from: 'openai:gpt-4o', reason: 'timeout' },
          },
        },
      },
    });
    const after = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'growing')}/timeline`),
    );
    expect(after.eventCount).toBe(3);
    expect(after.compactions).toEqual([
      {
        seq: 3,
        startSeq: 1,
        endSeq: 2,
        trigger: 'manual',
        tokensBefore: 50,
        tokensAfter: 10,
        summarizer: 'google:gemini-2.5-flash',
        fallback: { from: 'openai:gpt-4o', reason: 'timeout' },
        summary: 'Counted to two.',
      },
    ]);
  });

  it('answers bad paging with a 400 naming the parameter, a missing session with a 404', async () => {
    const fixture = inspectorFixture();
    await populate(fixture.service);
    for (const query of ['afterSeq=-1', 'afterSeq=x', 'limit=0', 'limit=1001']) {
      const response = await fixture.request(`${sessionPath('alice', 'a2')}/timeline?${query}`);
      expect(response.status).toBe(400);
      expect((await response.json()) as { field: string }).toMatchObject({
        field: query.split('=')[0],
      });
    }
    const missing = await fixture.request(`${sessionPath('alice', 'nope')}/timeline`);
    expect(missing.status).toBe(404);
  });
});

describe('GET .../events/:seq and .../view', () => {
  it('answers one stored event whole, and 404 for a seq it does not hold', async () => {
    const fixture = inspectorFixture();
    const events = await buildSession(
      fixture.service,
      { appName: APP, userId: 'alice', sessionId: 'a2' },
      TWO_COMPACTIONS,
    );
    const event = await json<Record<string, unknown>>(
      fixture.request(`${sessionPath('alice', 'a2')}/events/10`),
    );
    expect(event).toEqual(JSON.parse(JSON.stringify(events[9])));
    expect((await fixture.request(`${sessionPath('alice', 'a2')}/events/99`)).status).toBe(404);
    const bad = await fixture.request(`${sessionPath('alice', 'a2')}/events/0`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'seq' });
  });

  it('answers the events the next request holds, summary first, tokens as GET .../view', async () => {
    const fixture = inspectorFixture({
      compaction: { tokenThreshold: 4000, eventRetentionSize: 2 },
    });
    await buildSession(
      fixture.service,
      { appName: APP, userId: 'alice', sessionId: 'a2' },
      TWO_COMPACTIONS,
    );
    const view = await json<ViewResponse>(fixture.request(`${sessionPath('alice', 'a2')}/view`));
    // The checkpoint (seq 15, covering 1..13), then 14, 17, 18, 19: the partial 16 is never sent.
    expect(view.events.map((event) => [event.seq, event.kind])).toEqual([
      [15, 'compaction'],
      [14, 'model'],
      [17, 'model'],
      [18, 'user'],
      [19, 'model'],
    ]);
    expect(view.threshold).toBe(4000);
    expect(view.total).toBe(5);
    const paged = await json<ViewResponse>(
      fixture.request(`${sessionPath('alice', 'a2')}/view?offset=1&limit=2`),
    );
    expect(paged.events.map((event) => event.seq)).toEqual([14, 17]);
    expect([paged.total, paged.tokens]).toEqual([5, view.tokens]);
    const bad = await fixture.request(`${sessionPath('alice', 'a2')}/view?limit=0`);
    expect(bad.status).toBe(400);
    const adk = (await (
      await fixture.request(`/apps/${APP}/users/alice/sessions/a2/view`)
    ).json()) as { estimatedTokens: number };
    expect(view.tokens).toBe(adk.estimatedTokens);
  });
});

describe('token scoping', () => {
  it("answers 404 for another user's session on every session route, 401 without a token", async () => {
    const fixture = inspectorFixture({ tokens: true });
    await populate(fixture.service);
    for (const route of ['timeline', 'events/1', 'view', 'chart', 'stream']) {
      const path = `${sessionPath('alice', 'a2')}/${route}`;
      const asBob = await fixture.request(path, { token: TOKEN_BOB });
      expect(asBob.status, route).toBe(404);
      expect(await asBob.json()).toMatchObject({ field: 'sessionId' });
      expect((await fixture.request(path)).status, route).toBe(401);
    }
    const asAlice = await fixture.request(`${sessionPath('alice', 'a2')}/timeline`, {
      token: TOKEN_ALICE,
    });
    expect(asAlice.status).toBe(200);
  });

  it('reads any app of the store, not only the served one', async () => {
    const fixture = inspectorFixture();
    await populate(fixture.service);
    const body = await json<TimelineResponse>(
      fixture.request(`${sessionPath('alice', 'a-other', 'other')}/timeline`),
    );
    expect(body.events.map((event) => event.preview)).toEqual(['elsewhere']);
  });
});
