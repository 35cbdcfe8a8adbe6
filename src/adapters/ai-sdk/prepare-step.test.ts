import { generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { createCompactionPrepareStep } from './prepare-step.js';
import { orphans, startsWithSummary } from './test-helpers/prompt-checks.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

describe('createCompactionPrepareStep', () => {
  it('sends the compacted view from prepareStep and logs every message once, with usage', async () => {
    const sessionService = new InMemorySessionService();
    const provider = scriptedProvider({ calls: 12 });
    const result = await generateText({
      model: provider.model,
      system: 'You look things up.',
      prompt: 'Look up twelve items.',
      tools: {
        lookup: tool({
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({ item, detail: 'details '.repeat(60) }),
        }),
      },
      stopWhen: stepCountIs(30),
      experimental_context: { orrery: { conversationId: 'p1' } },
      prepareStep: createCompactionPrepareStep({
        sessionService,
        compaction: { tokenThreshold: 2_000, eventRetentionSize: 4 },
        summarizer: new DigestSummarizer(),
        logger: false,
      }),
    });
    expect(result.text).toBe('Done after 12 lookups.');
    expect(provider.prompts.some(startsWithSummary)).toBe(true);
    for (const prompt of provider.prompts) {
      expect(orphans(prompt)).toEqual([]);
      expect(prompt[0]).toEqual({ role: 'system', content: 'You look things up.' });
    }
    const { events } = await sessionService.listEvents({
      appName: 'ai-sdk',
      userId: 'anonymous',
      sessionId: 'p1',
    });
    const messages = events.filter((event) => event.content);
    // The final answer is never a step's input: prepareStep logs 1 + 12 calls + 12 results.
    expect(messages).toHaveLength(25);
    const answers = messages.filter((event) => event.content?.role === 'model');
    expect(answers.every((event) => (event.usageMetadata?.promptTokenCount ?? 0) > 0)).toBe(true);
  });

  it('leaves a step alone when no conversation is named', async () => {
    const sessionService = new InMemorySessionService();
    const prepareStep = createCompactionPrepareStep({
      sessionService,
      compaction: { tokenThreshold: 2_000, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer(),
      logger: false,
    });
    const provider = scriptedProvider({ calls: 0 });
    await generateText({ model: provider.model, prompt: 'hi', prepareStep });
    expect(await sessionService.listSessions({ appName: 'ai-sdk', userId: 'anonymous' })).toEqual(
      [],
    );
  });
});
