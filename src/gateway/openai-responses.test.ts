import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import type { ListeningServer } from '../server/listen.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { createGateway } from './create-gateway.js';
import {
  type FakeAnswer,
  type FakeOpenAi,
  type RecordedRequest,
  startFakeOpenAi,
} from './test-helpers/fake-openai.js';

const KEY = 'sk-test-provider-key-0123456789';
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

async function client(session: string): Promise<OpenAI> {
  const created = createGateway({
    sessionService: store,
    compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 8_000 }),
    openAiBaseUrl: upstream.url,
    logger: false,
  });
  gateway = await created.listen({ port: 0 });
  return new OpenAI({
    apiKey: KEY,
    baseURL: `${gateway.url}/openai/v1`,
    maxRetries: 0,
    defaultHeaders: { 'x-orrery-session': session },
  });
}

function response(request: RecordedRequest, output: unknown[]) {
  return {
    id: `resp_${upstream.requests.length}`,
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: String(request.body.model),
    output,
    usage: {
      input_tokens: Math.ceil(request.bytes / 4),
      output_tokens: 5,
      total_tokens: Math.ceil(request.bytes / 4) + 5,
    },
  };
}

function message(text: string) {
  return {
    type: 'message',
    id: `msg_${upstream.requests.length}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
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

/** Every function_call_output follows its function_call. */
function paired(input: Array<Record<string, unknown>>): boolean {
  const open = new Set<unknown>();
  for (const item of input) {
    if (item.type === 'function_call') open.add(item.call_id);
    if (item.type === 'function_call_output') {
      if (!open.has(item.call_id)) return false;
      open.delete(item.call_id);
    }
  }
  return open.size === 0;
}

describe('POST /openai/v1/responses', () => {
  it('compacts a stateless function-call loop, keeps calls and outputs paired', async () => {
    const openai = await client('responses-loop');
    upstream.respond = (request): FakeAnswer => {
      const input = request.body.input as Array<Record<string, unknown>>;
      const turn = upstream.requests.length;
      return input.at(-1)?.type === 'function_call_output'
        ? { json: response(request, [message(`done ${turn}`)]) }
        : {
            json: response(request, [
              {
                type: 'function_call',
                id: `fc_${turn}`,
                call_id: `call_${turn}`,
                name: 'read_file',
                arguments: JSON.stringify({ path: `f${turn}` }),
                status: 'completed',
              },
            ]),
          };
    };
    const history: ResponseInputItem[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      history.push({ role: 'user', content: `read file ${turn}` });
      const call = await openai.responses.create({
        model: 'gpt-5',
        instructions: 'You read files.',
        input: history,
        store: false,
      });
      const item = call.output[0];
      expect(item?.type).toBe('function_call');
      history.push(...(call.output as ResponseInputItem[]));
      history.push({
        type: 'function_call_output',
        call_id: item?.type === 'function_call' ? item.call_id : '',
        output: `file ${turn}: ${'x'.repeat(6_000)}`,
      });
      const done = await openai.responses.create({
        model: 'gpt-5',
        instructions: 'You read files.',
        input: history,
        store: false,
      });
      expect(done.output_text).toBe(`done ${turn * 2}`);
      history.push(...(done.output as ResponseInputItem[]));
    }
    expect(upstream.requests).toHaveLength(24);
    for (const request of upstream.requests) {
      expect(request.url).toBe('/v1/responses');
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.bytes).toBeLessThanOrEqual(64 * 1024);
      expect(request.body.instructions).toBe('You read files.');
      expect(paired(request.body.input as Array<Record<string, unknown>>)).toBe(true);
    }
    const input = upstream.requests.at(-1)!.body.input as Array<{ content?: unknown }>;
    expect(String(input[0]?.content).startsWith(SUMMARY_PREFIX)).toBe(true);
    const events = await stored('responses-loop');
    const messages = events.filter((event) => event.content && !event.actions?.compaction);
    // 12 turns x (user, call, output, answer); no branch: each resent output matched its answer.
    expect(messages).toHaveLength(48);
    expect(events.some((event) => event.actions?.rewindBeforeInvocationId)).toBe(false);
  });

  it('relays a stream and stores the answer from response.completed', async () => {
    const openai = await client('responses-stream');
    upstream.respond = (request) => {
      const done = response(request, [message('Hello, world')]);
      return {
        named: true,
        sse: [
          {
            type: 'response.created',
            sequence_number: 0,
            response: { ...done, status: 'in_progress', output: [] },
          },
          {
            type: 'response.output_text.delta',
            sequence_number: 1,
            item_id: 'msg',
            output_index: 0,
            content_index: 0,
            delta: 'Hello, ',
          },
          {
            type: 'response.output_text.delta',
            sequence_number: 2,
            item_id: 'msg',
            output_index: 0,
            content_index: 0,
            delta: 'world',
          },
          { type: 'response.completed', sequence_number: 3, response: done },
        ],
      };
    };
    const stream = await openai.responses.create({
      model: 'gpt-5',
      input: 'greet me',
      store: false,
      stream: true,
    });
    const deltas: string[] = [];
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    }
    expect(deltas).toEqual(['Hello, ', 'world']);
    const events = await stored('responses-stream');
    expect(events.map((event) => event.content?.parts[0]?.text)).toEqual([
      'greet me',
      'Hello, world',
    ]);
  });

  it('refuses previous_response_id in OpenAI shape, naming the field', async () => {
    const openai = await client('responses-refused');
    const refused = await openai.responses
      .create({ model: 'gpt-5', input: 'more', previous_response_id: 'resp_1' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(
      'previous_response_id',
    );
    expect(upstream.requests).toHaveLength(0);
  });
});
