import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { compactionMiddleware } from './middleware.js';
import { orphans, startsWithSummary, systemTexts } from './test-helpers/prompt-checks.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

const tools = {
  lookup: tool({
    description: 'Looks an item up',
    inputSchema: z.object({ item: z.number() }),
    execute: async ({ item }) => ({ item, detail: `record ${item}: ${'details '.repeat(60)}` }),
  }),
};

const compaction = { tokenThreshold: 2_000, eventRetentionSize: 4 };

async function history(service: SessionService, sessionId: string): Promise<Event[]> {
  const page = await service.listEvents({ appName: 'ai-sdk', userId: 'anonymous', sessionId });
  return page.events;
}

function setup(calls = 12) {
  const sessionService = new InMemorySessionService();
  const provider = scriptedProvider({ calls });
  const model = wrapLanguageModel({
    model: provider.model,
    middleware: compactionMiddleware({
      sessionService,
      compaction,
      summarizer: new DigestSummarizer(),
      logger: false,
    }),
  });
  return { sessionService, provider, model };
}

const orrery = (conversationId: string) => ({ orrery: { conversationId } });

describe('compactionMiddleware with generateText', () => {
  it('compacts a long tool loop, keeps the full history and never sends an orphan', async () => {
    const { sessionService, provider, model } = setup(12);
    const result = await generateText({
      model,
      system: 'You look things up.',
      prompt: 'Look up twelve items.',
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: orrery('c1'),
    });
    expect(result.text).toBe('Done after 12 lookups.');
    expect(provider.prompts).toHaveLength(13);
    // Over the threshold the provider gets the summary first, with the system message kept.
    const compacted = provider.prompts.filter(startsWithSummary);
    expect(compacted.length).toBeGreaterThan(0);
    expect(startsWithSummary(provider.prompts[0]!)).toBe(false);
    for (const prompt of provider.prompts) {
      expect(orphans(prompt)).toEqual([]);
      expect(systemTexts(prompt)).toEqual(['You look things up.']);
      expect(prompt[0]!.role).toBe('system');
    }
    const last = provider.prompts.at(-1)!;
    expect(last.length).toBeLessThan(1 + 1 + 12 * 2);
    // The session holds every message once, the answers with the provider's usage.
    const events = await history(sessionService, 'c1');
    const messages = events.filter((event) => event.content);
    expect(messages).toHaveLength(1 + 12 * 2 + 1);
    expect(events.filter((event) => event.actions.compaction).length).toBeGreaterThan(0);
    const answers = messages.filter((event) => event.content?.role === 'model');
    expect(answers).toHaveLength(13);
    for (const answer of answers) {
      expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
      expect(answer.usageMetadata?.candidatesTokenCount).toBe(20);
    }
    expect(messages.at(-1)!.content!.parts).toEqual([{ text: 'Done after 12 lookups.' }]);
  });

  it('passes a call without a conversation id through untouched and stores nothing', async () => {
    const { sessionService, provider, model } = setup(2);
    await generateText({ model, prompt: 'hi', tools, stopWhen: stepCountIs(5) });
    expect(provider.prompts).toHaveLength(3);
    expect(await sessionService.listSessions({ appName: 'ai-sdk', userId: 'anonymous' })).toEqual(
      [],
    );
  });
});

describe('compactionMiddleware with streamText', () => {
  it('compacts a streamed tool loop and stores each streamed answer', async () => {
    const { sessionService, provider, model } = setup(12);
    const result = streamText({
      model,
      system: 'You look things up.',
      prompt: 'Look up twelve items.',
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: orrery('s1'),
    });
    expect(await result.text).toContain('Done item 12.');
    expect(provider.prompts).toHaveLength(13);
    expect(provider.prompts.filter(startsWithSummary).length).toBeGreaterThan(0);
    for (const prompt of provider.prompts) expect(orphans(prompt)).toEqual([]);
    const events = await history(sessionService, 's1');
    const answers = events.filter((event) => event.content?.role === 'model');
    expect(answers).toHaveLength(13);
    expect(answers[0]!.content!.parts[0]).toEqual({ text: 'Looking up item 0.' });
    expect(answers.every((event) => (event.usageMetadata?.promptTokenCount ?? 0) > 0)).toBe(true);
    expect(events.filter((event) => event.content)).toHaveLength(26);
  });
});
