/**
 * The middleware's compaction spans: `orrery.compaction` under the span the app has active
 * around `agent.invoke` (in-memory exporter, AsyncLocalStorage context manager).
 */
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { trace } from '@opentelemetry/api';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { captureSpans } from '../shared/test-helpers/span-capture.js';
import { compactionMiddleware } from './compaction-middleware.js';
import { ScriptedChatModel } from './test-helpers/scripted-chat-model.js';

const exporter = captureSpans();

describe('compactionMiddleware spans', () => {
  it("records each compaction under the app's active span", async () => {
    const lookup = tool(async ({ query }) => `Result for ${query}: ${'facts '.repeat(10)}`, {
      name: 'lookup',
      description: 'Looks a question up.',
      schema: z.object({ query: z.string() }),
    });
    const agent = createAgent({
      model: new ScriptedChatModel({}),
      tools: [lookup],
      checkpointer: new MemorySaver(),
      middleware: [
        compactionMiddleware({
          sessionService: new InMemorySessionService(),
          compaction: { tokenThreshold: 600, eventRetentionSize: 4 },
          summarizer: new DigestSummarizer({ maxChars: 400 }),
          logger: false,
        }),
      ],
    });
    const tracer = trace.getTracer('app');
    const hostIds: string[] = [];
    for (let turn = 1; turn <= 20; turn++) {
      await tracer.startActiveSpan(`turn ${turn}`, async (span) => {
        hostIds.push(span.spanContext().spanId);
        await agent.invoke(
          { messages: [new HumanMessage(`Question number ${turn}, please look it up.`)] },
          { configurable: { thread_id: 'traced' } },
        );
        span.end();
      });
    }
    const compactions = exporter
      .getFinishedSpans()
      .filter((span) => span.name.startsWith('orrery.compaction '));
    expect(compactions.length).toBeGreaterThan(0);
    for (const compaction of compactions) {
      expect(hostIds).toContain(compaction.parentSpanContext?.spanId);
      expect(compaction.attributes['gen_ai.conversation.id']).toBe('traced');
    }
  });
});
