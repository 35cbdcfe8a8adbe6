import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import type { ListeningServer } from '../server/listen.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { createGateway } from './create-gateway.js';
import {
  type FakeOpenAi,
  type RecordedRequest,
  startFakeOpenAi,
} from './test-helpers/fake-openai.js';

const KEY = 'sk-ant-test-key-0123456789';
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

async function client(session: string): Promise<Anthropic> {
  const created = createGateway({
    sessionService: store,
    compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 8_000 }),
    anthropicBaseUrl: upstream.url.replace(/\/v1$/, ''),
    logger: false,
  });
  gateway = await created.listen({ port: 0 });
  return new Anthropic({
    apiKey: KEY,
    baseURL: `${gateway.url}/anthropic`,
    maxRetries: 0,
    defaultHeaders: { 'x-orrery-session': session },
  });
}

function usage(request: RecordedRequest) {
  return { input_tokens: Math.ceil(request.bytes / 4), output_tokens: 5 };
}

function message(request: RecordedRequest, content: unknown[]) {
  return {
    json: {
      id: `msg_${upstream.requests.length}`,
      type: 'message',
      role: 'assistant',
      model: String(request.body.model),
      content,
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: usage(request),
    },
  };
}

async function stored(session: string) {
  const page = await store.listEvents({
    appName: 'gateway',
    userId: 'anonymous',
    sessionId: session,
    limit: 10_000,
  });
  return page.events;
}

describe('POST /anthropic/v1/messages', () => {
  it('compacts a long tool loop with large results, pairs tool_use and tool_result, passes system through', async () => {
    const anthropic = await client('loop');
    upstream.respond = (request) => {
      const last = request.body.messages.at(-1)!;
      const turn = upstream.requests.length;
      return typeof last.content === 'string'
        ? message(request, [
            {
              type: 'tool_use',
              id: `toolu_${turn}`,
              name: 'read_file',
              input: { path: `f${turn}` },
            },
          ])
        : message(request, [{ type: 'text', text: `done ${turn}` }]);
    };
    const history: MessageParam[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      history.push({ role: 'user', content: `read file ${turn}` });
      const call = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        system: 'You read files.',
        messages: history,
      });
      const use = call.content[0];
      expect(use?.type).toBe('tool_use');
      history.push({ role: 'assistant', content: call.content });
      history.push({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: use?.type === 'tool_use' ? use.id : '',
            content: `file ${turn}: ${'x'.repeat(6_000)}`,
          },
        ],
      });
      const done = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        system: 'You read files.',
        messages: history,
      });
      expect(done.content).toEqual([{ type: 'text', text: `done ${turn * 2}` }]);
      history.push({ role: 'assistant', content: done.content });
    }
    expect(upstream.requests).toHaveLength(24);
    for (const request of upstream.requests) {
      expect(request.body.system).toBe('You read files.');
      // The SDK sends its key as x-api-key or as a bearer token: either is forwarded.
      expect(`${request.headers['x-api-key']} ${request.headers.authorization}`).toContain(KEY);
      expect(request.headers['anthropic-version']).toBeDefined();
      expect(request.bytes).toBeLessThanOrEqual(64 * 1024);
      const uses = new Set<string>();
      const results = new Set<string>();
      for (const sent of request.body.messages) {
        if (!Array.isArray(sent.content)) continue;
        for (const block of sent.content as Array<Record<string, unknown>>) {
          if (block.type === 'tool_use') uses.add(String(block.id));
          if (block.type === 'tool_result') {
            expect(uses.has(String(block.tool_use_id))).toBe(true);
            results.add(String(block.tool_use_id));
          }
        }
      }
      expect([...uses].filter((id) => !results.has(id))).toEqual([]);
    }
    const last = upstream.requests.at(-1)!.body.messages;
    expect(String(last[0]?.content)).toContain(SUMMARY_PREFIX.trim());
    const events = await stored('loop');
    expect(events.filter((event) => event.content && !event.actions.compaction)).toHaveLength(48);
    expect(events.some((event) => event.actions.compaction)).toBe(true);
  });

  it('relays a stream as sent and stores the assembled answer', async () => {
    const anthropic = await client('streamed');
    upstream.respond = (request) => ({
      named: true,
      sse: [
        {
          type: 'message_start',
          message: {
            id: 'msg_s',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: usage(request),
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello, ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'world' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 2 },
        },
        { type: 'message_stop' },
      ],
    });
    const stream = anthropic.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello, world' }]);
    expect(upstream.requests[0]?.body.stream).toBe(true);
    // The answer is stored once the stream has ended (the session's lock is released after it).
    await gateway!.shutdown({ timeoutMs: 5_000 });
    gateway = undefined;
    const events = await stored('streamed');
    expect(events.map((event) => event.content?.parts[0]?.text)).toEqual(['hi', 'Hello, world']);
    expect(events[1]?.usageMetadata?.candidatesTokenCount).toBe(2);
  });

  it("passes an upstream error through in Anthropic's shape", async () => {
    const anthropic = await client('overloaded');
    upstream.respond = () => ({
      status: 529,
      json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const failure = await anthropic.messages
      .create({
        model: 'claude-sonnet-4-5',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure).toMatchObject({
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    expect((await stored('overloaded')).map((event) => event.author)).toEqual(['user']);
  });
});
