import { type Content, GoogleGenAI } from '@google/genai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import type { ListeningServer } from '../server/listen.js';
import type { TokenGrant } from '../server/tokens.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { createGateway } from './create-gateway.js';
import {
  type FakeAnswer,
  type FakeOpenAi,
  type RecordedRequest,
  startFakeOpenAi,
} from './test-helpers/fake-openai.js';

const KEY = 'AIzaSy-test-key-0123456789abcdef';
const MODEL = 'gemini-2.5-flash';
let upstream: FakeOpenAi;
let gateway: ListeningServer | undefined;
let store: InMemorySessionService;

beforeEach(async () => {
  upstream = await startFakeOpenAi();
  store = new InMemorySessionService();
});
afterEach(async () => {
  await gateway?.shutdown({ timeoutMs: 1000 });
  gateway = undefined;
  await upstream.close();
});

async function start(auth?: { grants: TokenGrant[] }): Promise<string> {
  const created = createGateway({
    sessionService: store,
    compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 8_000 }),
    geminiBaseUrl: upstream.url.replace(/\/v1$/, ''),
    logger: false,
    ...(auth && { auth }),
  });
  gateway = await created.listen({ port: 0 });
  return gateway.url;
}

function client(url: string, headers: Record<string, string>): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: KEY,
    httpOptions: { baseUrl: `${url}/gemini`, headers, retryOptions: { attempts: 1 } },
  });
}

function answer(request: RecordedRequest, parts: unknown[]): FakeAnswer {
  return {
    json: {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: Math.ceil(request.bytes / 4),
        candidatesTokenCount: 5,
        totalTokenCount: Math.ceil(request.bytes / 4) + 5,
      },
      modelVersion: MODEL,
    },
  };
}

async function stored(session: string, userId = 'anonymous') {
  const page = await store.listEvents({
    appName: 'gateway',
    userId,
    sessionId: session,
    limit: 10_000,
  });
  return page.events;
}

/** Every functionResponse in `contents` follows a model content calling that function. */
function responsesPaired(contents: Array<Record<string, unknown>>): boolean {
  const called: string[] = [];
  for (const content of contents) {
    for (const part of content.parts as Array<Record<string, { name: string }>>) {
      if (part.functionCall) called.push(part.functionCall.name);
      if (part.functionResponse) {
        const at = called.indexOf(part.functionResponse.name);
        if (at === -1) return false;
        called.splice(at, 1);
      }
    }
  }
  return called.length === 0;
}

describe('POST /gemini/v1beta/models/{model}:generateContent', () => {
  it('compacts a long function-call loop without call ids, keeps calls and responses paired', async () => {
    const ai = client(await start(), { 'x-orrery-session': 'loop' });
    upstream.respond = (request) => {
      const last = request.body.contents.at(-1) as { parts: Array<Record<string, unknown>> };
      const turn = upstream.requests.length;
      return last.parts[0]?.functionResponse
        ? answer(request, [{ text: `done ${turn}` }])
        : answer(request, [{ functionCall: { name: 'read_file', args: { path: `f${turn}` } } }]);
    };
    const history: Content[] = [];
    const config = {
      systemInstruction: 'You read files.',
      tools: [{ functionDeclarations: [{ name: 'read_file', description: 'reads a file' }] }],
    };
    for (let turn = 1; turn <= 12; turn++) {
      history.push({ role: 'user', parts: [{ text: `read file ${turn}` }] });
      const call = await ai.models.generateContent({ model: MODEL, contents: history, config });
      expect(call.functionCalls?.[0]?.name).toBe('read_file');
      history.push(call.candidates![0]!.content!);
      history.push({
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: 'read_file',
              response: { content: `file ${turn}: ${'x'.repeat(6_000)}` },
            },
          },
        ],
      });
      const done = await ai.models.generateContent({ model: MODEL, contents: history, config });
      expect(done.text).toBe(`done ${turn * 2}`);
      history.push(done.candidates![0]!.content!);
    }
    expect(upstream.requests).toHaveLength(24);
    const largest = Math.max(...upstream.requests.map((request) => request.bytes));
    const historyBytes = JSON.stringify(history).length;
    if (process.env.ORRERY_GATEWAY_FIGURES) {
      console.log(`gemini: largest ${largest} bytes; history ${historyBytes} bytes`);
    }
    expect(largest).toBeLessThan(historyBytes);
    for (const request of upstream.requests) {
      expect(request.url).toBe(`/v1beta/models/${MODEL}:generateContent`);
      expect(request.headers['x-goog-api-key']).toBe(KEY);
      expect(request.bytes).toBeLessThanOrEqual(64 * 1024);
      expect(responsesPaired(request.body.contents)).toBe(true);
      expect(request.body.systemInstruction).toEqual({
        parts: [{ text: 'You read files.' }],
        role: 'user',
      });
      expect(request.body.tools).toEqual(config.tools);
    }
    const last = upstream.requests.at(-1)!;
    const firstText = (last.body.contents[0] as { parts: Array<{ text?: string }> }).parts[0]?.text;
    expect(firstText?.startsWith(SUMMARY_PREFIX)).toBe(true);
    // Forwarded calls carry no made-up ids: the client's own contents or rebuilt ones without them.
    const ids = upstream.requests.flatMap((request) =>
      request.body.contents.flatMap((content) =>
        (content.parts as Array<Record<string, { id?: string }>>).flatMap((part) => [
          part.functionCall?.id,
          part.functionResponse?.id,
        ]),
      ),
    );
    expect(ids.filter((id) => id !== undefined)).toEqual([]);
    const events = await stored('loop');
    const messages = events.filter((event) => event.content && !event.actions?.compaction);
    expect(messages.length).toBe(48);
    expect(events.some((event) => event.actions?.compaction)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('relays streamGenerateContent as SSE and stores the assembled answer', async () => {
    const ai = client(await start(), { 'x-orrery-session': 'stream' });
    upstream.respond = (request) => {
      const usage = { promptTokenCount: Math.ceil(request.bytes / 4), candidatesTokenCount: 3 };
      const chunk = (text: string, last = false) => ({
        candidates: [
          {
            content: { role: 'model', parts: [{ text }] },
            index: 0,
            ...(last && { finishReason: 'STOP' }),
          },
        ],
        ...(last && { usageMetadata: usage }),
      });
      return { sse: [chunk('Hello, '), chunk('wor'), chunk('ld', true)], bare: true };
    };
    const stream = await ai.models.generateContentStream({
      model: MODEL,
      contents: [{ role: 'user', parts: [{ text: 'greet me' }] }],
    });
    const texts: string[] = [];
    for await (const chunk of stream) texts.push(chunk.text ?? '');
    expect(texts).toEqual(['Hello, ', 'wor', 'ld']);
    expect(upstream.requests[0]?.url).toBe(`/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`);
    const events = await stored('stream');
    expect(events.map((event) => event.content?.parts[0]?.text)).toEqual([
      'greet me',
      'Hello, world',
    ]);
    expect(events.at(-1)?.usageMetadata?.candidatesTokenCount).toBe(3);
  });

  it('sends a ?key= credential upstream as x-goog-api-key, never in a URL or the store', async () => {
    const url = await start();
    upstream.respond = (request) => answer(request, [{ text: 'hi' }]);
    const response = await fetch(
      `${url}/gemini/v1beta/models/${MODEL}:generateContent?key=${KEY}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-orrery-session': 'query-key' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      },
    );
    expect(response.status).toBe(200);
    expect(upstream.requests[0]?.headers['x-goog-api-key']).toBe(KEY);
    expect(upstream.requests[0]?.url).not.toContain(KEY);
    expect(JSON.stringify(await stored('query-key'))).not.toContain(KEY);
  });

  it("passes upstream errors through in Gemini's shape and refuses bad requests in it", async () => {
    const ai = client(await start(), { 'x-orrery-session': 'errors' });
    upstream.respond = () => ({
      status: 429,
      json: {
        error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' },
      },
    });
    const refused = await ai.models
      .generateContent({ model: MODEL, contents: 'hello' })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'ApiError', status: 429 });
    expect(String((refused as Error).message)).toContain('RESOURCE_EXHAUSTED');

    const bad = await ai.models
      .generateContent({
        model: MODEL,
        contents: [{ role: 'user', parts: [{ functionResponse: { response: {} } }] }],
      })
      .catch((error: unknown) => error);
    expect(bad).toMatchObject({ name: 'ApiError', status: 400 });
    expect(String((bad as Error).message)).toContain('contents[0].parts[0].functionResponse.name');
    expect(String((bad as Error).message)).toContain('INVALID_ARGUMENT');
    expect(upstream.requests).toHaveLength(1);
    expect((await stored('errors')).map((event) => event.content?.role)).toEqual(['user']);
  });

  it('keeps two users with the same session header apart', async () => {
    const url = await start({
      grants: [
        { token: 'alice-token-0123456789', userIds: ['alice'] },
        { token: 'bob-token-0123456789ab', userIds: ['bob'] },
      ],
    });
    upstream.respond = (request) => answer(request, [{ text: 'noted' }]);
    const alice = client(url, {
      'x-orrery-session': 'shared',
      'x-orrery-token': 'alice-token-0123456789',
    });
    const bob = client(url, {
      'x-orrery-session': 'shared',
      'x-orrery-token': 'bob-token-0123456789ab',
    });
    await alice.models.generateContent({ model: MODEL, contents: 'alice secret' });
    await bob.models.generateContent({ model: MODEL, contents: 'bob question' });
    await bob.models.generateContent({
      model: MODEL,
      contents: [
        { role: 'user', parts: [{ text: 'bob question' }] },
        { role: 'model', parts: [{ text: 'noted' }] },
        { role: 'user', parts: [{ text: 'and again' }] },
      ],
    });
    const bobRequests = JSON.stringify(upstream.requests.slice(1).map((request) => request.body));
    expect(bobRequests).not.toContain('alice secret');
    expect((await stored('shared', 'alice')).map((event) => event.content?.parts[0]?.text)).toEqual(
      ['alice secret', 'noted'],
    );
    expect((await stored('shared', 'bob')).map((event) => event.content?.parts[0]?.text)).toEqual([
      'bob question',
      'noted',
      'and again',
      'noted',
    ]);
    const anonymous = await client(url, { 'x-orrery-session': 'shared' })
      .models.generateContent({ model: MODEL, contents: 'no token' })
      .catch((error: unknown) => error);
    expect(anonymous).toMatchObject({ name: 'ApiError', status: 401 });
    expect(String((anonymous as Error).message)).toContain('UNAUTHENTICATED');
  });
});
