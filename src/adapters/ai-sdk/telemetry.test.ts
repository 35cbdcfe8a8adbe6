/**
 * The middleware's compaction spans sit in the AI SDK's own trace: with its telemetry on,
 * each `orrery.compaction` span's parent is one of the `ai.generateText` spans of the call
 * that compacted (in-memory exporter, AsyncLocalStorage context manager).
 */
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { captureSpans } from '../shared/test-helpers/span-capture.js';
import { compactionMiddleware } from './middleware.js';
import { scriptedProvider } from './test-helpers/scripted-provider.js';

const exporter = captureSpans();

describe('compactionMiddleware spans', () => {
  it("records each compaction under the AI SDK's spans of that call", async () => {
    const provider = scriptedProvider({ calls: 12 });
    const model = wrapLanguageModel({
      model: provider.model,
      middleware: compactionMiddleware({
        sessionService: new InMemorySessionService(),
        compaction: { tokenThreshold: 2_000, eventRetentionSize: 4 },
        summarizer: new DigestSummarizer(),
        logger: false,
      }),
    });
    await generateText({
      model,
      prompt: 'Look up twelve items.',
      tools: {
        lookup: tool({
          description: 'Looks an item up',
          inputSchema: z.object({ item: z.number() }),
          execute: async ({ item }) => ({
            item,
            detail: `record ${item}: ${'details '.repeat(60)}`,
          }),
        }),
      },
      stopWhen: stepCountIs(30),
      providerOptions: { orrery: { conversationId: 'traced' } },
      experimental_telemetry: { isEnabled: true },
    });
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const compactions = spans.filter((span) => span.name.startsWith('orrery.compaction '));
    expect(compactions.length, spans.map((span) => span.name).join(', ')).toBeGreaterThan(0);
    for (const compaction of compactions) {
      const parent = byId.get(compaction.parentSpanContext?.spanId ?? '');
      expect(parent?.name).toMatch(/^ai\.generateText/);
      expect(compaction.attributes).toMatchObject({
        'gen_ai.conversation.id': 'traced',
        'orrery.compaction.trigger': 'token_threshold',
        'orrery.compaction.outcome': 'compacted',
      });
    }
  });
});
