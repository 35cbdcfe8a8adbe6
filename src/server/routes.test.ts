/**
 * Every route over a real listening server (127.0.0.1, random port): ADK's session routes and
 * `/run`, orrery's `view`, `events` and `compact`, operations, and the answers to bad input.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse, toolCallResponse } from '../testing/scripted-model.js';
import { APP, parseSse, startTestServer, type TestServer } from './test-helpers/test-server.js';

/** The fields of ADK event JSON these tests read. */
interface AdkEventJson {
  author: string;
  invocationId: string;
  partial?: boolean;
  content: { parts: Array<{ text?: string }> };
  customMetadata?: { orrery?: { seq?: number } };
  status?: number;
  error?: string;
}

interface ViewJson {
  systemInstruction?: string;
  contents: Array<{ parts: Array<{ text?: string }> }>;
  tailEvents: number;
  estimatedTokens: number;
  checkpointSeq?: number;
}

interface EventPageJson {
  events: Array<{ seq: number }>;
  nextCursor?: number;
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const sessions = (user = 'local') => `/apps/${APP}/users/${user}/sessions`;

async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
  const { json, ...rest } = init;
  return fetch(`${server!.url}${path}`, {
    ...rest,
    headers: {
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...rest.headers,
    },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
}

function runBody(sessionId: string, text = 'hello', extra: Record<string, unknown> = {}) {
  return {
    appName: APP,
    userId: 'local',
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
    ...extra,
  };
}

describe('ADK session routes', () => {
  it('lists the app, creates, gets, lists and deletes sessions in ADK JSON', async () => {
    server = await startTestServer();
    expect(await (await call('/list-apps')).json()).toEqual([APP]);

    const created = await call(sessions(), { method: 'POST', json: { state: { topic: 'ops' } } });
    expect(created.status).toBe(200);
    const session = (await created.json()) as Record<string, unknown>;
    expect(session).toMatchObject({
      appName: APP,
      userId: 'local',
      state: { topic: 'ops' },
      events: [],
    });
    expect(typeof session.id).toBe('string');
    expect(typeof session.lastUpdateTime).toBe('number');

    const withId = await call(`${sessions()}/s-1`, { method: 'POST' });
    expect(withId.status).toBe(200);
    expect(((await withId.json()) as { id: string }).id).toBe('s-1');

    const again = await call(`${sessions()}/s-1`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect(await again.json()).toMatchObject({
      status: 409,
      field: 'sessionId',
      type: 'urn:orrery:problem:session-exists',
    });

    const listed = (await (await call(sessions())).json()) as Array<{
      id: string;
      events: unknown[];
    }>;
    expect(listed.map((item) => item.id).sort()).toEqual([session.id, 's-1'].sort());
    expect(listed.every((item) => item.events.length === 0)).toBe(true);

    const got = await call(`${sessions()}/s-1`);
    expect(await got.json()).toMatchObject({
      id: 's-1',
      appName: APP,
      userId: 'local',
      events: [],
    });

    const deleted = await call(`${sessions()}/s-1`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await call(`${sessions()}/s-1`)).status).toBe(404);
    expect((await call(`${sessions()}/s-1`, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 404 problems for an unknown app, session and route', async () => {
    server = await startTestServer();
    const app = await call('/apps/other/users/local/sessions');
    expect(app.status).toBe(404);
    expect(await app.json()).toMatchObject({ status: 404, field: 'appName', title: 'Not Found' });

    const missing = await call(`${sessions()}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      field: 'sessionId',
      detail: "session 'nope' not found",
    });

    const route = await call('/no/such/route');
    expect(route.status).toBe(404);
    expect(route.headers.get('content-type')).toBe('application/problem+json');
  });

  it('refuses a create body with a wrong type, naming the field', async () => {
    server = await startTestServer();
    const response = await call(sessions(), { method: 'POST', json: { state: 'not an object' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 400, field: 'state' });
  });
});

describe('POST /run and /run_sse', () => {
  it('/run answers every event of the invocation as one JSON array, stored with gapless seq', async () => {
    server = await startTestServer({ script: [textResponse('hi there')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run', { method: 'POST', json: runBody('s') });
    expect(response.status).toBe(200);
    const events = (await response.json()) as AdkEventJson[];
    // The user's message is stored, not sent back (ADK's runner does the same).
    expect(events.map((event) => [event.author, event.content.parts[0]?.text])).toEqual([
      ['assistant', 'hi there'],
    ]);
    // ADK's shape: orrery's seq under customMetadata.orrery.
    expect(events.map((event) => event.customMetadata?.orrery?.seq)).toEqual([2]);
    const stored = await server.service.listEvents({
      appName: APP,
      userId: 'local',
      sessionId: 's',
    });
    expect(stored.events.map((event) => event.seq)).toEqual([1, 2]);
    expect(server.model.calls[0]?.systemInstruction).toBe('Answer briefly.');
  });

  it('/run_sse sends one data: message per event, each ended by a blank line', async () => {
    server = await startTestServer({
      script: [
        toolCallResponse([{ id: 'call-1', name: 'lookup', args: { word: 'orrery' } }]),
        textResponse('streamed answer'),
      ],
    });
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run_sse', {
      method: 'POST',
      json: runBody('s', 'hello', { streaming: false }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const text = await response.text();
    expect(text).toMatch(/^data: \{.*\}\n\ndata: \{.*\}\n\ndata: \{.*\}\n\n$/);
    const messages = parseSse(text) as Array<
      AdkEventJson & { content: { parts: Array<Record<string, unknown>> } }
    >;
    expect(messages.map((event) => Object.keys(event.content.parts[0] ?? {}))).toEqual([
      ['functionCall'],
      ['functionResponse'],
      ['text'],
    ]);
    expect(messages.map((event) => event.customMetadata?.orrery?.seq)).toEqual([2, 3, 4]);
    expect(messages[2]?.content.parts[0]?.text).toBe('streamed answer');
  });

  it('/run_sse with streaming: true sends partial events (never stored) before the answer', async () => {
    server = await startTestServer({ script: [textResponse('partial then whole')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run_sse', {
      method: 'POST',
      json: runBody('s', 'hello', { streaming: true }),
    });
    const messages = parseSse(await response.text()) as AdkEventJson[];
    expect(
      messages.map((event) => [
        event.partial ?? false,
        event.customMetadata?.orrery?.seq,
        event.content.parts[0]?.text,
      ]),
    ).toEqual([
      [true, undefined, 'partial then whole'],
      [false, 2, 'partial then whole'],
    ]);
    expect(server.model.callModes).toEqual(['stream']);
    const stored = await server.service.listEvents({
      appName: APP,
      userId: 'local',
      sessionId: 's',
    });
    expect(stored.events.map((event) => event.partial)).toEqual([undefined, undefined]);
  });

  it('/run_sse answers an HTTP 404 (not a stream) for an unknown session', async () => {
    server = await startTestServer();
    const response = await call('/run_sse', { method: 'POST', json: runBody('missing') });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ field: 'sessionId', status: 404 });
  });

  it('a model failure mid-stream ends the stream with an error message', async () => {
    server = await startTestServer({ script: [new Error('provider exploded')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run_sse', { method: 'POST', json: runBody('s') });
    expect(response.status).toBe(200);
    const messages = parseSse(await response.text()) as AdkEventJson[];
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ status: 500, type: 'urn:orrery:problem:internal' });
    expect(typeof messages[0]!.error).toBe('string');
  });

  it.each([
    ['malformed JSON', '{"appName": ', 'body', /not valid JSON/],
    ['an empty body', '', 'body', /empty/],
    ['a wrong type', JSON.stringify({ ...runBody('s'), sessionId: 42 }), 'sessionId', /string/],
    [
      'a missing message',
      JSON.stringify({ ...runBody('s'), newMessage: undefined }),
      'newMessage',
      /./,
    ],
    [
      'a bad part',
      JSON.stringify({ ...runBody('s'), newMessage: { role: 'user', parts: [{ text: 1 }] } }),
      'newMessage.parts[0].text',
      /./,
    ],
    [
      'a model role',
      JSON.stringify({ ...runBody('s'), newMessage: { role: 'model', parts: [{ text: 'x' }] } }),
      'newMessage.role',
      /user/,
    ],
    [
      'a non-boolean streaming',
      JSON.stringify({ ...runBody('s'), streaming: 'yes' }),
      'streaming',
      /boolean/,
    ],
    [
      'a state delta',
      JSON.stringify({ ...runBody('s'), stateDelta: { a: 1 } }),
      'stateDelta',
      /state delta/,
    ],
  ])('/run refuses %s with a 400 naming the field', async (_name, body, field, detail) => {
    server = await startTestServer();
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await response.json()) as Record<string, string>;
    expect(problem.field).toBe(field);
    expect(problem.detail).toMatch(detail);
    expect(problem.type).toBe('urn:orrery:problem:invalid-request');
    // Nothing was stored for a refused request.
    const stored = await server.service.listEvents({
      appName: APP,
      userId: 'local',
      sessionId: 's',
    });
    expect(stored.events).toEqual([]);
  });

  it('refuses a body over the limit with 413, before running anything', async () => {
    server = await startTestServer({ maxBodyBytes: 1024 });
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call('/run', { method: 'POST', json: runBody('s', 'x'.repeat(2000)) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ status: 413, field: 'body' });
    expect(server.model.calls).toHaveLength(0);
  });

  it('refuses a streamed body (no content-length) over the limit with 413', async () => {
    server = await startTestServer({ maxBodyBytes: 1024 });
    await call(`${sessions()}/s`, { method: 'POST' });
    const text = JSON.stringify(runBody('s', 'x'.repeat(2000)));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    const response = await fetch(`${server!.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(server.model.calls).toHaveLength(0);
  });

  it('runs a streamed body under the limit', async () => {
    server = await startTestServer({ maxBodyBytes: 4096, script: [textResponse('hello')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    const text = JSON.stringify(runBody('s', 'hi'));
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    const response = await fetch(`${server!.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
  });

  it('/run on an unknown session is a 404 and stores nothing', async () => {
    server = await startTestServer();
    const response = await call('/run', { method: 'POST', json: runBody('ghost') });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ field: 'sessionId' });
    expect(
      await server.service.getSession({ appName: APP, userId: 'local', sessionId: 'ghost' }),
    ).toBeUndefined();
  });
});

describe("orrery's session routes", () => {
  it('view shows the next request; events pages the full history by seq', async () => {
    server = await startTestServer({ script: [textResponse('one'), textResponse('two')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    await call('/run', { method: 'POST', json: runBody('s', 'first') });
    await call('/run', { method: 'POST', json: runBody('s', 'second') });

    const view = (await (await call(`${sessions()}/s/view`)).json()) as ViewJson;
    expect(view.systemInstruction).toBe('Answer briefly.');
    expect(view.contents.map((content) => content.parts[0]?.text)).toEqual([
      'first',
      'one',
      'second',
      'two',
    ]);
    expect(view.tailEvents).toBe(4);
    expect(view.estimatedTokens).toBeGreaterThan(0);

    const page1 = (await (await call(`${sessions()}/s/events?limit=3`)).json()) as EventPageJson;
    expect(page1.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(page1.nextCursor).toBe(3);
    const page2 = (await (
      await call(`${sessions()}/s/events?afterSeq=3&limit=3`)
    ).json()) as EventPageJson;
    expect(page2.events.map((event) => event.seq)).toEqual([4]);
    expect(page2.nextCursor).toBeUndefined();
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=5000', 'limit'],
    ['afterSeq=-1', 'afterSeq'],
    ['afterSeq=abc', 'afterSeq'],
  ])('events?%s is a 400 naming %s', async (query, field) => {
    server = await startTestServer();
    await call(`${sessions()}/s`, { method: 'POST' });
    const response = await call(`${sessions()}/s/events?${query}`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field });
  });

  it('compact summarizes all but the retained events, appending one compaction event', async () => {
    server = await startTestServer({ script: [textResponse('one'), textResponse('two')] });
    await call(`${sessions()}/s`, { method: 'POST' });
    await call('/run', { method: 'POST', json: runBody('s', 'first') });
    await call('/run', { method: 'POST', json: runBody('s', 'second') });
    const response = await call(`${sessions()}/s/compact`, {
      method: 'POST',
      json: { retention: 2 },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      outcome: 'compacted',
      trigger: 'manual',
      startSeq: 1,
      endSeq: 2,
    });
    const view = (await (await call(`${sessions()}/s/view`)).json()) as ViewJson;
    expect(view.checkpointSeq).toBe(5);
    expect(view.tailEvents).toBe(2);
    const bad = await call(`${sessions()}/s/compact`, { method: 'POST', json: { retention: -1 } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'retention' });
    expect((await call(`${sessions()}/nope/compact`, { method: 'POST' })).status).toBe(404);
  });
});

describe('operations routes', () => {
  it('healthz, readyz, metrics (Prometheus text with the HTTP counters), version', async () => {
    server = await startTestServer({ script: [textResponse('ok')] });
    expect(await (await call('/healthz')).json()).toEqual({ status: 'ok' });
    expect(await (await call('/readyz')).json()).toEqual({ status: 'ready' });
    await call(`${sessions()}/s`, { method: 'POST' });
    await call('/run', { method: 'POST', json: runBody('s') });
    const metrics = await call('/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toMatch(
      /orrery_http_requests_total\{method="POST",route="\/run",status="200"\} 1/,
    );
    expect(text).toContain('orrery_context_compaction_total');
    expect(((await (await call('/version')).json()) as { server: string }).server).toBe('orrery');
  });

  it('readyz is a 503 when the store does not answer', async () => {
    server = await startTestServer();
    const failing = server.service;
    failing.listSessions = async () => {
      throw new Error('connection refused');
    };
    const response = await call('/readyz');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ type: 'urn:orrery:problem:store-unreachable' });
  });

  it('routes of ADK tooling orrery does not serve are a 501 problem', async () => {
    server = await startTestServer();
    for (const path of [
      `/dev/apps/${APP}/build_graph`,
      `/apps/${APP}/eval_sets`,
      '/debug/trace/x',
    ]) {
      const response = await call(path);
      expect(response.status).toBe(501);
      expect(await response.json()).toMatchObject({ type: 'urn:orrery:problem:not-served' });
    }
  });

  it('logs one access line per request with its request id, returned in x-request-id', async () => {
    server = await startTestServer();
    const response = await call('/healthz', { headers: { 'x-request-id': 'req-42' } });
    expect(response.headers.get('x-request-id')).toBe('req-42');
    const generated = await call('/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const access = server.logs.filter((line) => line.msgType === 'access');
    expect(access.map((line) => [line.requestId, line.status, line.route])).toEqual([
      ['req-42', 200, '/healthz'],
      [id, 200, '/healthz'],
    ]);
  });
});
