import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { compactionMiddleware } from './middleware.js';
import { CountingSessionService } from './test-helpers/counting-session-service.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

function wrapped(sessionService: InMemorySessionService | CountingSessionService) {
  const provider = scriptedProvider({ calls: 0 });
  const model = wrapLanguageModel({
    model: provider.model,
    middleware: compactionMiddleware({
      sessionService,
      compaction: { tokenThreshold: 100_000, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer(),
      logger: false,
    }),
  });
  return { provider, model };
}

describe('compactionMiddleware across processes', () => {
  it('a new middleware on the same store continues the log from its end, reading one page', async () => {
    const store = new CountingSessionService(new InMemorySessionService());
    const first = wrapped(store);
    const messages: ModelMessage[] = [];
    const providerOptions = { orrery: { conversationId: 'restart' } };
    for (let turn = 1; turn <= 30; turn++) {
      messages.push({ role: 'user', content: `question ${turn}` });
      const result = await generateText({ model: first.model, messages, providerOptions });
      messages.push(...result.response.messages);
    }
    // A restart: no cursor in memory.
    const second = wrapped(store);
    messages.push({ role: 'user', content: 'question 31' });
    store.take();
    await generateText({ model: second.model, messages, providerOptions });
    const counts = store.take();
    expect(counts.listEvents).toBe(1);
    expect(counts.appendEvent).toBe(2);
    const { events } = await store.listEvents({
      appName: 'ai-sdk',
      userId: 'anonymous',
      sessionId: 'restart',
    });
    expect(events).toHaveLength(62);
    expect(events.filter((event) => event.actions.rewindBeforeInvocationId)).toEqual([]);
  });

  it('a conversation id that is not a string is a typed error naming the field', async () => {
    const { model } = wrapped(new InMemorySessionService());
    const error = await generateText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      providerOptions: { orrery: { conversationId: 42 } },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(AdapterOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'providerOptions.orrery.conversationId', value: 42 });
  });
});
