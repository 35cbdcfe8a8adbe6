import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventsCompactionConfig } from '../compaction/config.js';
import { PiiRedactionPlugin } from '../runtime/plugins/pii-redaction.js';
import type { ListeningServer } from '../server/listen.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { createGateway } from './create-gateway.js';
import { completion, type FakeOpenAi, startFakeOpenAi } from './test-helpers/fake-openai.js';

const SECRET = 'sk-live-0123456789abcdefghijklmnop';
const EMAIL = 'alice.smith@example.org';
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

describe('the gateway with the redaction plugin', () => {
  it('stores messages, answers and summaries masked, forwards the tail as sent, never branches', async () => {
    const created = createGateway({
      sessionService: store,
      compaction: createEventsCompactionConfig({ env: {}, tokenThreshold: 2_000 }),
      openAiBaseUrl: upstream.url,
      logger: false,
      redaction: new PiiRedactionPlugin(),
    });
    gateway = await created.listen({ port: 0 });
    const openai = new OpenAI({
      apiKey: 'sk-test-provider-key-0123456789',
      baseURL: `${gateway.url}/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-orrery-session': 'masked' },
    });
    upstream.respond = (request) =>
      completion(upstream.requests.length === 1 ? `noted, I will mail ${EMAIL}` : 'ok', request);
    const history: ChatCompletionMessageParam[] = [
      { role: 'user', content: `my key is ${SECRET}, mail ${EMAIL}` },
    ];
    for (let turn = 1; turn <= 8; turn++) {
      const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
      history.push(answer.choices[0]!.message);
      history.push({ role: 'user', content: `turn ${turn}: ${'words '.repeat(400)}` });
    }
    // What went upstream first: the client's message as it sent it.
    expect(upstream.requests[0]?.body.messages[0]?.content).toBe(
      `my key is ${SECRET}, mail ${EMAIL}`,
    );
    // The second request still forwards the first message unmasked: the tail is the client's.
    expect(JSON.stringify(upstream.requests[1]?.body.messages)).toContain(SECRET);
    const page = await store.listEvents({
      appName: 'gateway',
      userId: 'anonymous',
      sessionId: 'masked',
      limit: 10_000,
    });
    const text = JSON.stringify(page.events);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(EMAIL);
    expect(text).toContain('[REDACTED:');
    // A resent history matched what was stored (identities are the client's messages').
    expect(page.events.some((event) => event.actions?.rewindBeforeInvocationId)).toBe(false);
    const messages = page.events.filter((event) => event.content && !event.actions?.compaction);
    expect(messages).toHaveLength(16);
    expect(page.events.some((event) => event.actions?.compaction)).toBe(true);
  });
});
