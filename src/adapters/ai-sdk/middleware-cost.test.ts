import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { compactionMiddleware } from './middleware.js';
import {
  CountingSessionService,
  type StoreCounts,
} from './test-helpers/counting-session-service.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

describe('compactionMiddleware cost per step', () => {
  it('reads and appends the same per step at step 60 as at step 5', async () => {
    const store = new CountingSessionService(new InMemorySessionService());
    const provider = scriptedProvider({ calls: 80 });
    const perStep: StoreCounts[] = [];
    const model = wrapLanguageModel({
      model: provider.model,
      middleware: compactionMiddleware({
        sessionService: store,
        compaction: { tokenThreshold: 3_000, eventRetentionSize: 6 },
        summarizer: new DigestSummarizer(),
        logger: false,
      }),
    });
    await generateText({
      model,
      prompt: 'Look up eighty items.',
      tools: {
        lookup: tool({
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({ item, detail: 'details '.repeat(40) }),
        }),
      },
      stopWhen: stepCountIs(81),
      providerOptions: { orrery: { conversationId: 'cost' } },
      // Each step's store work, taken when the step is done.
      onStepFinish: () => {
        perStep.push(store.take());
      },
    });
    expect(perStep).toHaveLength(81);
    const steady = perStep.slice(1);
    // No step pages through the history, every step logs the tool result and the answer.
    expect(steady.map((counts) => counts.listEvents)).toEqual(steady.map(() => 0));
    expect(steady.map((counts) => counts.appendEvent)).toEqual(steady.map(() => 2));
    expect(steady.filter((counts) => counts.appendCompaction > 0).length).toBeGreaterThan(3);
    // One view read per step, two when the step compacted (the guard reads the new view).
    for (const counts of steady) expect(counts.loadView).toBe(1 + counts.appendCompaction);
    // The events read per step are bounded by the compacted tail, not the history.
    const early = Math.max(...steady.slice(0, 20).map((counts) => counts.eventsRead));
    const late = Math.max(...steady.slice(-20).map((counts) => counts.eventsRead));
    expect(late).toBeLessThanOrEqual(early);
    expect(provider.prompts.at(-1)!.length).toBeLessThan(40);
  });
});
