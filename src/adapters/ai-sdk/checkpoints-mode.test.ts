import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AI_SDK_CHECKPOINT_KEY } from './checkpoint-store.js';
import { compactionMiddleware } from './middleware.js';
import { orphans, startsWithSummary } from './test-helpers/prompt-checks.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

const tools = {
  lookup: tool({
    inputSchema: z.object({ item: z.number() }),
    execute: async ({ item }) => ({ item, detail: 'details '.repeat(60) }),
  }),
};

function setup() {
  const sessionService = new InMemorySessionService();
  const provider = scriptedProvider({ calls: 12 });
  const model = wrapLanguageModel({
    model: provider.model,
    middleware: compactionMiddleware({
      sessionService,
      compaction: { tokenThreshold: 2_000, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer(),
      logger: false,
      mode: 'checkpoints',
    }),
  });
  return { sessionService, provider, model };
}

async function stored(sessionService: InMemorySessionService, sessionId: string) {
  return (await sessionService.listEvents({ appName: 'ai-sdk', userId: 'anonymous', sessionId }))
    .events;
}

describe("compactionMiddleware mode: 'checkpoints'", () => {
  it('stores only summaries, keyed by message position, and sends summary + tail', async () => {
    const { sessionService, provider, model } = setup();
    const messages: ModelMessage[] = [{ role: 'user', content: 'Look up twelve items.' }];
    const options = { orrery: { conversationId: 'k' } };
    const first = await generateText({
      model,
      messages,
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: options,
    });
    expect(first.text).toBe('Done after 12 lookups.');
    expect(provider.prompts.some(startsWithSummary)).toBe(true);
    for (const prompt of provider.prompts) expect(orphans(prompt)).toEqual([]);
    const events = await stored(sessionService, 'k');
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.content === undefined)).toBe(true);
    const last = events.at(-1)!.customMetadata?.[AI_SDK_CHECKPOINT_KEY];
    expect(last).toMatchObject({ compaction: { startSeq: 1, trigger: 'token_threshold' } });
    // The next turn starts from the stored checkpoint: its first prompt is already compacted.
    messages.push(...first.response.messages, { role: 'user', content: 'And now?' });
    const before = provider.prompts.length;
    await generateText({
      model,
      messages,
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: options,
    });
    expect(startsWithSummary(provider.prompts[before]!)).toBe(true);
    expect(provider.prompts[before]!.length).toBeLessThan(messages.length);
  });

  it('ignores a checkpoint once the app changed a message it covers', async () => {
    const { sessionService, provider, model } = setup();
    const options = { orrery: { conversationId: 'k2' } };
    const first = await generateText({
      model,
      prompt: 'Look up twelve items.',
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: options,
    });
    const checkpoints = (await stored(sessionService, 'k2')).length;
    expect(checkpoints).toBeGreaterThan(0);
    // The app rewrote its first message: every checkpoint covers it, none applies.
    const edited: ModelMessage[] = [
      { role: 'user', content: 'Look up twelve other items.' },
      ...first.response.messages.slice(0, 2),
    ];
    const before = provider.prompts.length;
    await generateText({ model, messages: edited, tools, providerOptions: options });
    expect(startsWithSummary(provider.prompts[before]!)).toBe(false);
    expect(JSON.stringify(provider.prompts[before])).toContain('twelve other items');
  });
});
