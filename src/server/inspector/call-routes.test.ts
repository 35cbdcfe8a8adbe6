import { describe, expect, it } from 'vitest';
import { createEvent } from '../../events/event-helpers.js';
import type {
  CallRequestResponse,
  CallTraceResponse,
  ChartResponse,
  InspectorInfo,
  StateResponse,
} from './api-types.js';
import {
  APP,
  buildSession,
  inspectorFixture,
  TOKEN_ALICE,
  TOKEN_BOB,
  TWO_COMPACTIONS,
} from './test-helpers/inspector-fixture.js';

const session = `/inspector/api/apps/${APP}/users/alice/sessions/a2`;
const key = { appName: APP, userId: 'alice', sessionId: 'a2' };

async function json<T>(response: Promise<Response>): Promise<T> {
  const resolved = await response;
  expect(resolved.status).toBe(200);
  return (await resolved.json()) as T;
}

describe('GET /inspector/api/info', () => {
  it('names the served app and agent, the page size, and that a run is offered', async () => {
    const fixture = inspectorFixture({ tokens: true });
    const info = await json<InspectorInfo>(
      fixture.request('/inspector/api/info', { token: TOKEN_ALICE }),
    );
    expect(info).toEqual({
      appName: APP,
      agentName: 'assistant',
      canRun: true,
      pageSize: 200,
      maxPageSize: 1000,
    });
  });

  it('says why not on a read-only server, and wants the token like every API route', async () => {
    const fixture = inspectorFixture({
      tokens: true,
      inspector: { readOnlyReason: 'only reads the store' },
    });
    expect((await fixture.request('/inspector/api/info')).status).toBe(401);
    const info = await json<InspectorInfo>(
      fixture.request('/inspector/api/info', { token: TOKEN_ALICE }),
    );
    expect(info).toMatchObject({ canRun: false, readOnlyReason: 'only reads the store' });
  });
});

describe('GET .../calls', () => {
  it('lists every model call: its request (summary + tail), answer, tool calls, estimate', async () => {
    const fixture = inspectorFixture({ tokens: true });
    await buildSession(fixture.service, key, TWO_COMPACTIONS);
    const { calls } = await json<CallTraceResponse>(
      fixture.request(`${session}/calls`, { token: TOKEN_ALICE }),
    );
    expect(calls.map((call) => call.seq)).toEqual([2, 4, 6, 9, 10, 12, 14, 17, 19]);
    // The chart counts the same requests: each call carries its estimate.
    const chart = await json<ChartResponse>(
      fixture.request(`${session}/chart`, { token: TOKEN_ALICE }),
    );
    expect(calls.map((call) => call.request.estimatedTokens)).toEqual(
      chart.points.map((point) => point.tokens),
    );
    expect(calls[0]).toMatchObject({
      call: 1,
      invocationId: 'invocation-1',
      author: 'assistant',
      request: { summarySeq: null, fromSeq: 1, toSeq: 1, eventCount: 1 },
      answer: { seq: 2, kind: 'tool-call' },
      toolCalls: [
        {
          id: 'c1',
          name: 'lookup',
          args: '{"word":"orrery"}',
          resultSeq: 3,
          result: '{"definition":"a model of the solar system"}',
        },
      ],
      seconds: 1,
    });
    // After the first compaction (seq 8, over 1..6): its summary, then seq 7.
    expect(calls[3]?.request).toMatchObject({ summarySeq: 8, fromSeq: 7, toSeq: 7, eventCount: 2 });
    // The dangling call has no result.
    expect(calls[5]?.toolCalls).toEqual([
      { id: 'c3', name: 'lookup', args: '{"word":"never answered"}' },
    ]);
    // The second checkpoint (seq 15, over 1..13); the partial event at 16 is in no request.
    expect(calls[7]?.request).toMatchObject({
      summarySeq: 15,
      fromSeq: 14,
      toSeq: 14,
      eventCount: 2,
    });
    expect(calls[8]?.request).toMatchObject({
      summarySeq: 15,
      fromSeq: 14,
      toSeq: 18,
      eventCount: 4,
    });
    expect(calls[8]?.usage).toBeUndefined();
  });

  it('pages the calls, oldest or newest first, with the total', async () => {
    const fixture = inspectorFixture({ tokens: true });
    await buildSession(fixture.service, key, TWO_COMPACTIONS);
    const newest = await json<CallTraceResponse>(
      fixture.request(`${session}/calls?order=desc&limit=3`, { token: TOKEN_ALICE }),
    );
    expect(newest.total).toBe(9);
    expect(newest.calls.map((call) => call.call)).toEqual([9, 8, 7]);
    const older = await json<CallTraceResponse>(
      fixture.request(`${session}/calls?order=desc&offset=3&limit=3`, { token: TOKEN_ALICE }),
    );
    expect(older.calls.map((call) => call.call)).toEqual([6, 5, 4]);
    const oldest = await json<CallTraceResponse>(
      fixture.request(`${session}/calls?offset=7`, { token: TOKEN_ALICE }),
    );
    expect(oldest.calls.map((call) => call.call)).toEqual([8, 9]);
    const bad = await fixture.request(`${session}/calls?order=sideways`, { token: TOKEN_ALICE });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('order: expected asc or desc, got \\"sideways\\"');
  });

  it('reports the provider usage: input, cached, output', async () => {
    const fixture = inspectorFixture({ tokens: true });
    await fixture.service.createSession(key);
    await fixture.service.appendEvent({
      ...key,
      event: createEvent({
        author: 'user',
        invocationId: 'i1',
        timestamp: 100,
        content: { role: 'user', parts: [{ text: 'hello' }] },
      }),
    });
    await fixture.service.appendEvent({
      ...key,
      event: createEvent({
        author: 'assistant',
        invocationId: 'i1',
        timestamp: 102.5,
        content: { role: 'model', parts: [{ text: 'hi' }] },
        finishReason: 'stop',
        usageMetadata: {
          promptTokenCount: 1200,
          cachedContentTokenCount: 1000,
          candidatesTokenCount: 7,
          totalTokenCount: 1207,
        },
      }),
    });
    const { calls } = await json<CallTraceResponse>(
      fixture.request(`${session}/calls`, { token: TOKEN_ALICE }),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      usage: { input: 1200, cached: 1000, output: 7, total: 1207 },
      finishReason: 'stop',
      seconds: 2.5,
      timestamp: 102.5,
      answer: { preview: 'hi', kind: 'model' },
    });
  });

  it("is another user's session a 404", async () => {
    const fixture = inspectorFixture({ tokens: true });
    await buildSession(fixture.service, key, TWO_COMPACTIONS);
    expect((await fixture.request(`${session}/calls`, { token: TOKEN_BOB })).status).toBe(404);
    expect((await fixture.request(`${session}/state`, { token: TOKEN_BOB })).status).toBe(404);
  });
});

describe('GET .../calls/:call/request', () => {
  it("returns the call's request events, the summary first, paged", async () => {
    const fixture = inspectorFixture({ tokens: true });
    await buildSession(fixture.service, key, TWO_COMPACTIONS);
    const last = await json<CallRequestResponse>(
      fixture.request(`${session}/calls/9/request`, { token: TOKEN_ALICE }),
    );
    expect(last.total).toBe(4);
    expect(last.events.map((event) => [event.seq, event.kind])).toEqual([
      [15, 'compaction'],
      [14, 'model'],
      [17, 'model'],
      [18, 'user'],
    ]);
    const page = await json<CallRequestResponse>(
      fixture.request(`${session}/calls/9/request?offset=1&limit=2`, { token: TOKEN_ALICE }),
    );
    expect(page.events.map((event) => event.seq)).toEqual([14, 17]);
    const first = await json<CallRequestResponse>(
      fixture.request(`${session}/calls/1/request`, { token: TOKEN_ALICE }),
    );
    expect(first.events.map((event) => event.seq)).toEqual([1]);
    const missing = await fixture.request(`${session}/calls/10/request`, { token: TOKEN_ALICE });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('has 9 model calls, not a call 10');
  });
});

describe('GET .../state', () => {
  it('returns the state and the event that last set each key', async () => {
    const fixture = inspectorFixture({ tokens: true });
    await fixture.service.createSession({ ...key, state: { plan: 'free' } });
    for (const [index, delta] of [{ topic: 'billing' }, { topic: 'refunds', step: 2 }].entries()) {
      await fixture.service.appendEvent({
        ...key,
        event: createEvent({
          author: 'assistant',
          invocationId: `i${index}`,
          content: { role: 'model', parts: [{ text: `answer ${index}` }] },
          actions: { stateDelta: delta },
        }),
      });
    }
    const state = await json<StateResponse>(
      fixture.request(`${session}/state`, { token: TOKEN_ALICE }),
    );
    expect(state.state).toEqual({ plan: 'free', topic: 'refunds', step: 2 });
    expect(state.setBySeq).toEqual({ topic: 2, step: 2 });
    expect(typeof state.lastUpdateTime).toBe('number');
  });
});
