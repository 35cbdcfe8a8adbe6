import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { hungSummarizer, timed } from '../../runtime/test-helpers/hung-summarizer.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { compactionMiddleware } from './middleware.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

afterEach(() => {
  vi.useRealTimers();
});

const tools = {
  lookup: tool({
    description: 'Looks an item up',
    inputSchema: z.object({ item: z.number() }),
    execute: async ({ item }) => ({ item, detail: `record ${item}: ${'details '.repeat(60)}` }),
  }),
};

describe('compactionMiddleware with a runaway summarizer (default 120 s timeout)', () => {
  for (const mode of ['log', 'checkpoints'] as const) {
    it(`${mode}: one model call waits one timeout, the next calls and turns do not`, async () => {
      vi.useFakeTimers();
      const summarizer = hungSummarizer();
      const reports: CompactionReport[] = [];
      const provider = scriptedProvider({ calls: 3 });
      const model = wrapLanguageModel({
        model: provider.model,
        middleware: compactionMiddleware({
          sessionService: new InMemorySessionService(),
          compaction: { tokenThreshold: 500, eventRetentionSize: 2 },
          summarizer,
          fallbackSummarizer: null,
          onCompaction: (report) => reports.push(report),
          mode,
          logger: false,
        }),
      });
      const durationsMs: number[] = [];
      const callsPerTurn: number[] = [];
      for (let turn = 0; turn < 4; turn++) {
        const before = summarizer.calls;
        durationsMs.push(
          await timed(() =>
            generateText({
              model,
              prompt: `Look up three items (${turn}).`,
              tools,
              stopWhen: stepCountIs(10),
              providerOptions: { orrery: { conversationId: 'c-1' } },
            }),
          ),
        );
        callsPerTurn.push(summarizer.calls - before);
      }
      // Before the cool-down: 120 s for every model call over the threshold (3 or 4 a turn).
      expect(callsPerTurn.reduce((sum, calls) => sum + calls, 0)).toBe(1);
      expect(durationsMs.reduce((sum, ms) => sum + ms, 0)).toBe(120_000);
      const skipped = reports.filter((report) => report.coolDown && 'cause' in report.coolDown);
      expect(skipped.length).toBeGreaterThanOrEqual(3);
      expect(provider.prompts.length).toBeGreaterThan(4);
    });
  }
});
