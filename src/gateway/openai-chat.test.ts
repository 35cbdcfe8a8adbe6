import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import type { Event } from '../events/types.js';
import type { ListeningServer } from '../server/listen.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { type CreateGatewayOptions, createGateway } from './create-gateway.js';
import {
  chunks,
  completion,
  type FakeOpenAi,
  startFakeOpenAi,
} from './test-helpers/fake-openai.js';

const PROVIDER_KEY = 'sk-test-provider-key-0123456789';

let upstream: FakeOpenAi;
let gateway: ListeningServer | undefined;
let store: InMemorySessionService;
let logLines: string[];

beforeEach(async () => {
  upstream = await startFakeOpenAi();
  store = new InMemorySessionService();
  logLines = [];
});

afterEach(async () => {
  await gateway?.shutdown({ timeoutMs: 1000 });
  gateway = undefined;
  await upstream.close();
});

async function start(options: Partial<CreateGatewayOptions> = {}): Promise<string> {
  const created = createGateway({
    sessionService: store,
    compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 8_000 }),
    openAiBaseUrl: upstream.url,
    logger: pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) }),
    ...options,
  });
  gateway = await created.listen({ port: 0 });
  return `${gateway.url}/openai/v1`;
}

function client(baseURL: string, headers: Record<string, string> = {}): OpenAI {
  return new OpenAI({ apiKey: PROVIDER_KEY, baseURL, maxRetries: 0, defaultHeaders: headers });
}

/** Text of `bytes` characters that says which turn it belongs to. */
function filler(label: string, bytes: number): string {
  return `${label}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27))}`.slice(0, bytes);
}

async function allEvents(userId: string, sessionId: string): Promise<Event[]> {
  const page = await store.listEvents({ appName: 'gateway', userId, sessionId, limit: 10_000 });
  return page.events;
}

/** Every tool message follows its call and every call has its result, in one request. */
function expectPaired(messages: Array<Record<string, unknown>>): void {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') {
      expect(called.has(String(message.tool_call_id))).toBe(true);
      answered.add(String(message.tool_call_id));
    }
    for (const call of (message.tool_calls as Array<{ id: string }> | undefined) ?? []) {
      called.add(call.id);
    }
  }
  expect([...called].sort()).toEqual([...answered].sort());
}

describe('POST /openai/v1/chat/completions', () => {
  it('answers 40 turns of 4 kB resent whole, never forwards over 64 kB, stores every message', async () => {
    const baseURL = await start();
    upstream.respond = (request) => completion(`answer ${upstream.requests.length}`, request);
    const openai = client(baseURL, { 'x-orrery-session': 'long-run' });
    const history: ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 40; turn++) {
      history.push({ role: 'user', content: filler(`turn ${turn}`, 4_000) });
      const answer = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'system', content: 'You are terse.' }, ...history],
      });
      expect(answer.choices[0]?.message.content).toBe(`answer ${turn}`);
      history.push(answer.choices[0]!.message);
    }
    expect(upstream.requests).toHaveLength(40);
    const largest = Math.max(...upstream.requests.map((request) => request.bytes));
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    if (process.env.ORRERY_GATEWAY_FIGURES) {
      console.log(`largest ${largest} bytes; history ${JSON.stringify(history).length} bytes`);
    }
    // The client's own history ended at 40 x 4 kB: compaction is what kept the requests small.
    expect(JSON.stringify(history).length).toBeGreaterThan(160_000);
    const last = upstream.requests.at(-1)!.body.messages;
    expect(last[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(String(last[1]?.content)).toContain(SUMMARY_PREFIX.trim());
    expect(last.at(-1)).toEqual(history.at(-2));
    const events = await allEvents('anonymous', 'long-run');
    const messages = events.filter((event) => event.content && !event.actions.compaction);
    expect(messages.length).toBe(80);
    expect(events.some((event) => event.actions.compaction)).toBe(true);
  });

  it('streams tool calls and large tool outputs through, paired in every forwarded request', async () => {
    const baseURL = await start();
    upstream.respond = (request) => {
      const lastMessage = request.body.messages.at(-1)!;
      const turn = upstream.requests.length;
      return lastMessage.role === 'user'
        ? chunks('', request, [
            { id: `call_${turn}`, name: 'read_file', arguments: `{"path":"f${turn}"}` },
          ])
        : chunks(`done ${turn}`, request);
    };
    const openai = client(baseURL, { 'x-orrery-session': 'tools' });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'read_file', parameters: { type: 'object', properties: {} } },
      },
    ];
    const history: ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      history.push({ role: 'user', content: `read file ${turn}` });
      for (;;) {
        const stream = await openai.chat.completions.create({
          model: 'gpt-4o',
          messages: history,
          tools,
          stream: true,
        });
        let text = '';
        const calls: Array<{ id: string; name: string; arguments: string }> = [];
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta;
          text += delta?.content ?? '';
          for (const call of delta?.tool_calls ?? []) {
            calls[call.index] ??= { id: '', name: '', arguments: '' };
            const slot = calls[call.index]!;
            slot.id += call.id ?? '';
            slot.name += call.function?.name ?? '';
            slot.arguments += call.function?.arguments ?? '';
          }
        }
        if (calls.length === 0) {
          history.push({ role: 'assistant', content: text });
          expect(text).toMatch(/^done \d+$/);
          break;
        }
        history.push({
          role: 'assistant',
          content: null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        });
        for (const call of calls) {
          history.push({ role: 'tool', tool_call_id: call.id, content: filler(call.id, 6_000) });
        }
      }
    }
    expect(upstream.requests).toHaveLength(24);
    for (const request of upstream.requests) {
      expect(request.body.stream).toBe(true);
      expect(request.body.tools).toEqual(tools);
      expectPaired(request.body.messages);
      expect(request.bytes).toBeLessThanOrEqual(64 * 1024);
    }
    const events = await allEvents('anonymous', 'tools');
    const stored = events.filter((event) => event.content && !event.actions.compaction);
    // 12 turns: user, call, result, answer each.
    expect(stored).toHaveLength(48);
    const calls = stored.flatMap((event) =>
      (event.content?.parts ?? []).flatMap((part) =>
        part.functionCall ? [part.functionCall] : [],
      ),
    );
    expect(calls.map((call) => call.args)).toContainEqual({ path: 'f1' });
    expect(events.some((event) => event.actions.compaction)).toBe(true);
  });

  it('records a client that rewrites its history as a branch, never duplicating', async () => {
    const baseURL = await start();
    upstream.respond = (request) => completion(`answer ${upstream.requests.length}`, request);
    const openai = client(baseURL, { 'x-orrery-session': 'edited' });
    const history: ChatCompletionMessageParam[] = [];
    for (const text of ['first', 'second', 'third']) {
      history.push({ role: 'user', content: text });
      const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
      history.push(answer.choices[0]!.message);
    }
    const edited: ChatCompletionMessageParam[] = [
      ...history.slice(0, 2),
      { role: 'user', content: 'second, edited' },
    ];
    const { data, response } = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: edited })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('answer 4');
    expect(response.headers.get('x-orrery-branched')).toBe('true');
    expect(upstream.requests.at(-1)!.body.messages).toEqual(edited);
    const events = await allEvents('anonymous', 'edited');
    // 6 messages, 1 rewind, the edited message and its answer: nothing appended twice.
    expect(events).toHaveLength(9);
    expect(events[6]?.actions.rewindBeforeInvocationId).toBe(events[2]?.invocationId);
    expect(events.filter((event) => event.content?.parts[0]?.text === 'first')).toHaveLength(1);
    // The same request again appends nothing new before its answer.
    await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        ...edited,
        { role: 'assistant', content: 'answer 4' },
        { role: 'user', content: 'more' },
      ],
    });
    expect(await allEvents('anonymous', 'edited')).toHaveLength(11);
  });

  it('keeps two users with the same session header apart', async () => {
    const baseURL = await start({
      auth: {
        grants: [
          { token: 'alice-token-0123456789', userIds: ['alice'] },
          { token: 'bob-token-0123456789ab', userIds: ['bob'] },
        ],
      },
    });
    upstream.respond = (request) => completion('noted', request);
    const alice = client(baseURL, {
      'x-orrery-session': 'shared',
      'x-orrery-token': 'alice-token-0123456789',
    });
    const bob = client(baseURL, {
      'x-orrery-session': 'shared',
      'x-orrery-token': 'bob-token-0123456789ab',
    });
    await alice.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'alice secret' }],
    });
    await bob.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'bob note' }],
    });
    await alice.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'user', content: 'alice secret' },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: 'again' },
      ],
    });
    const aliceEvents = await allEvents('alice', 'shared');
    const bobEvents = await allEvents('bob', 'shared');
    expect(aliceEvents.map((event) => event.content?.parts[0]?.text)).toEqual([
      'alice secret',
      'noted',
      'again',
      'noted',
    ]);
    expect(bobEvents.map((event) => event.content?.parts[0]?.text)).toEqual(['bob note', 'noted']);
    expect(JSON.stringify(upstream.requests.at(-1)!.body)).not.toContain('bob note');
    // Without its gateway token a request is refused in OpenAI's error shape.
    const anonymous = client(baseURL);
    await expect(
      anonymous.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({ status: 401, code: 'invalid_gateway_token' });
  });

  it("passes an upstream error through in the provider's shape and stores no answer", async () => {
    const baseURL = await start();
    upstream.respond = () => ({
      status: 429,
      json: {
        error: {
          message: 'Rate limit reached',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    });
    const openai = client(baseURL, { 'x-orrery-session': 'limited' });
    const failure = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect(failure).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      error: { message: 'Rate limit reached', type: 'requests' },
    });
    const events = await allEvents('anonymous', 'limited');
    expect(events.map((event) => event.author)).toEqual(['user']);
  });

  it('forwards the client key upstream and never stores or logs it', async () => {
    const baseURL = await start();
    upstream.respond = (request) => completion('hi', request);
    const openai = client(baseURL, { 'x-orrery-session': 'keyed' });
    await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expect(upstream.requests[0]?.headers['x-orrery-session']).toBeUndefined();
    expect(JSON.stringify(await allEvents('anonymous', 'keyed'))).not.toContain(PROVIDER_KEY);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(PROVIDER_KEY);
  });

  it('continues a conversation sent without a session header by its stored answer', async () => {
    const baseURL = await start();
    upstream.respond = (request) => completion(`answer ${upstream.requests.length}`, request);
    const openai = client(baseURL);
    const first = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    const second = await openai.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [
          { role: 'user', content: 'hello' },
          first.data.choices[0]!.message,
          { role: 'user', content: 'and then?' },
        ],
      })
      .withResponse();
    const other = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    const session = first.response.headers.get('x-orrery-session');
    expect(session).toBeTruthy();
    expect(second.response.headers.get('x-orrery-session')).toBe(session);
    expect(other.response.headers.get('x-orrery-session')).not.toBe(session);
    expect(await allEvents('anonymous', session!)).toHaveLength(4);
  });

  it('answers 502 in OpenAI shape when the upstream cannot be reached', async () => {
    const unreachable = await startFakeOpenAi();
    const url = unreachable.url;
    await unreachable.close();
    const baseURL = await start({ openAiBaseUrl: url });
    const failure = await client(baseURL, { 'x-orrery-session': 'down' })
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, type: 'upstream_error' });
    // The client's message is stored; the session is free for the next request.
    expect((await allEvents('anonymous', 'down')).map((event) => event.author)).toEqual(['user']);
  });

  it('compacts and retries once when the provider refuses the request for size', async () => {
    const baseURL = await start({
      compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 100_000 }),
    });
    const limit = 20_000;
    let answered = 0;
    upstream.respond = (request) => {
      if (request.bytes > limit) {
        return {
          status: 400,
          json: {
            error: {
              message: "This model's maximum context length is 5000 tokens.",
              type: 'invalid_request_error',
              param: 'messages',
              code: 'context_length_exceeded',
            },
          },
        };
      }
      answered++;
      return completion(`answer ${answered}`, request);
    };
    const openai = client(baseURL, { 'x-orrery-session': 'overflow' });
    const history: ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 10; turn++) {
      history.push({ role: 'user', content: filler(`turn ${turn}`, 4_000) });
      const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
      expect(answer.choices[0]?.message.content).toBe(`answer ${turn}`);
      history.push(answer.choices[0]!.message);
    }
    const refused = upstream.requests.filter((request) => request.bytes > limit);
    expect(refused.length).toBeGreaterThan(0);
    // Each refusal was followed by exactly one retry, which was answered.
    expect(upstream.requests).toHaveLength(10 + refused.length);
    const events = await allEvents('anonymous', 'overflow');
    const triggers = events.flatMap((event) =>
      event.actions.compaction ? [event.actions.compaction.trigger] : [],
    );
    expect(triggers).toContain('overflow');
  });

  it('refuses a message over the byte ceiling as context_length_exceeded, forwarding nothing', async () => {
    const baseURL = await start({
      compaction: createEventsCompactionConfig({
        env: {},
        tokenThreshold: 8_000,
        maxRequestBytes: 2_000,
      }),
    });
    await expect(
      client(baseURL, { 'x-orrery-session': 'huge' }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: filler('huge', 5_000) }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a malformed request naming the field, forwarding nothing', async () => {
    const baseURL = await start();
    const openai = client(baseURL, { 'x-orrery-session': 'bad' });
    await expect(
      openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'tool', content: 'orphan' } as unknown as ChatCompletionMessageParam],
      }),
    ).rejects.toMatchObject({ status: 400, param: 'messages[0].tool_call_id' });
    expect(upstream.requests).toHaveLength(0);
  });
});
