/**
 * The AI SDK middleware with the elision tier on (docs/architecture.md#elision-the-cheap-tier):
 * a rule changes the view as a summary does, so the provider gets the view (placeholders
 * instead of old bulky tool outputs), never the app's own messages with every output whole.
 */
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ELISION_PLACEHOLDER_PREFIX } from '../../compaction/elision.js';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { compactionMiddleware } from './middleware.js';
import {
  CountingSessionService,
  type StoreCounts,
} from './test-helpers/counting-session-service.js';
import { orphans, startsWithSummary } from './test-helpers/prompt-checks.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

const tools = {
  lookup: tool({
    description: 'Looks an item up',
    inputSchema: z.object({ item: z.number() }),
    execute: async ({ item }) => ({ item, detail: `record ${item}: ${'details '.repeat(60)}` }),
  }),
};

describe('compactionMiddleware with elision on', () => {
  it('sends the elided view after a rule is written, as after a compaction', async () => {
    const sessionService = new CountingSessionService(new InMemorySessionService());
    const perStep: StoreCounts[] = [];
    const provider = scriptedProvider({ calls: 12 });
    const reports: CompactionReport[] = [];
    const model = wrapLanguageModel({
      model: provider.model,
      middleware: compactionMiddleware({
        sessionService,
        compaction: {
          tokenThreshold: 2_000,
          eventRetentionSize: 4,
          elision: { minOutputBytes: 200 },
        },
        summarizer: new DigestSummarizer(),
        logger: false,
        onCompaction: (report) => reports.push(report),
      }),
    });
    await generateText({
      model,
      prompt: 'Look up twelve items.',
      tools,
      stopWhen: stepCountIs(30),
      providerOptions: { orrery: { conversationId: 'c1' } },
      onStepFinish: () => {
        perStep.push(sessionService.take());
      },
    });
    const elided = reports.filter((report) => report.outcome === 'elided');
    expect(elided.length).toBeGreaterThan(0);
    // Every prompt after the first rule (and before any summary) shows its placeholders.
    const shown = (prompt: unknown) => JSON.stringify(prompt).includes(ELISION_PLACEHOLDER_PREFIX);
    const first = provider.prompts.findIndex(shown);
    expect(first).toBeGreaterThan(0);
    for (const prompt of provider.prompts.slice(first)) {
      expect(shown(prompt) || startsWithSummary(prompt)).toBe(true);
      expect(orphans(prompt)).toEqual([]);
    }
    // The log's cursor follows the rule's append: no step pages through the history again.
    expect(perStep.slice(1).map((counts) => counts.listEvents)).toEqual(
      perStep.slice(1).map(() => 0),
    );
  });
});
