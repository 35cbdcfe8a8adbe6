import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import type { ListeningServer } from '../server/listen.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { createGateway } from './create-gateway.js';
import { completion, type FakeOpenAi, startFakeOpenAi } from './test-helpers/fake-openai.js';

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

function toolNames(body: Record<string, unknown>): string[] {
  return ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map(
    (tool) => tool.function.name,
  );
}

describe('recall through the gateway (x-orrery-recall: 1)', () => {
  it('offers recall upstream, answers its call inside the gateway, returns only the final answer', async () => {
    const created = createGateway({
      sessionService: store,
      compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 2_000 }),
      openAiBaseUrl: upstream.url,
      logger: false,
      recall: 'header',
    });
    gateway = await created.listen({ port: 0 });
    const openai = new OpenAI({
      apiKey: 'sk-test-provider-key-0123456789',
      baseURL: `${gateway.url}/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-orrery-session': 'recall' },
    });
    upstream.respond = (request) => {
      const last = request.body.messages.at(-1)!;
      if (last.role === 'tool') return completion(`from memory: ${String(last.content)}`, request);
      if (toolNames(request.body).includes('recall') && String(last.content).includes('codeword')) {
        return completion('', request, [
          {
            id: 'call_recall_1',
            type: 'function',
            function: { name: 'recall', arguments: JSON.stringify({ query: 'codeword' }) },
          },
        ]);
      }
      return completion('ok', request);
    };
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'read_file', parameters: { type: 'object', properties: {} } },
      },
    ];
    const history: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'remember: the codeword is PELICAN-42' },
    ];
    for (let turn = 1; turn <= 8; turn++) {
      const answer = await openai.chat.completions.create({
        model: 'gpt-4o',
        messages: history,
        tools,
      });
      history.push(answer.choices[0]!.message);
      history.push({ role: 'user', content: `turn ${turn}: ${'chatter '.repeat(400)}` });
    }
    // Without the header, recall is not offered.
    expect(upstream.requests.every((request) => !toolNames(request.body).includes('recall'))).toBe(
      true,
    );
    // The codeword's message is summarized out of what is forwarded by now.
    expect(upstream.requests.at(-1)!.body.messages).not.toContainEqual(history[0]);
    history.push({ role: 'user', content: 'what was the codeword?' });
    const before = upstream.requests.length;
    const answer = await openai.chat.completions.create(
      { model: 'gpt-4o', messages: history, tools },
      { headers: { 'x-orrery-recall': '1' } },
    );
    // The client sees the final answer, no recall call.
    expect(answer.choices[0]?.message.tool_calls).toBeUndefined();
    expect(answer.choices[0]?.message.content).toContain('PELICAN-42');
    const [offered, answered] = upstream.requests.slice(before);
    expect(upstream.requests.length - before).toBe(2);
    expect(toolNames(offered!.body)).toEqual(['read_file', 'recall']);
    const result = answered!.body.messages.at(-1)!;
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'call_recall_1' });
    expect(String(result.content)).toContain('PELICAN-42');
    // The client's next request continues the log: the recall round trip was not stored.
    history.push(answer.choices[0]!.message);
    history.push({ role: 'user', content: 'thanks' });
    await openai.chat.completions.create({ model: 'gpt-4o', messages: history, tools });
    const page = await store.listEvents({
      appName: 'gateway',
      userId: 'anonymous',
      sessionId: 'recall',
      limit: 10_000,
    });
    expect(page.events.some((event) => event.actions?.rewindBeforeInvocationId)).toBe(false);
    const messages = page.events.filter((event) => event.content && !event.actions?.compaction);
    expect(messages).toHaveLength(history.length + 1);
    expect(JSON.stringify(messages)).not.toContain('call_recall_1');
  });
});
