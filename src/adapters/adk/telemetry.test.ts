/**
 * The session service's compaction spans: `orrery.compaction` inside the trace the app and
 * ADK-JS have active during `runner.runAsync` (in-memory exporter, AsyncLocalStorage context
 * manager): same trace as the app's span, parent one of its spans (the app's or ADK's own).
 */
import { FunctionTool, LlmAgent, Runner } from '@google/adk';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { captureSpans } from '../shared/test-helpers/span-capture.js';
import { OrreryAdkSessionService } from './orrery-adk-session-service.js';
import { StubLlm } from './test-helpers/stub-llm.js';

const exporter = captureSpans();

describe('OrreryAdkSessionService spans', () => {
  it("records each compaction inside the run's trace", async () => {
    const sessionService = new OrreryAdkSessionService({
      sessionService: new InMemorySessionService(),
      compaction: { tokenThreshold: 500, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer({ maxChars: 300 }),
      logger: false,
    });
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks a question up.',
      parameters: z.object({ question: z.string() }),
      execute: async ({ question }: { question: string }) => ({
        result: `Result for ${question}: ${'facts '.repeat(15)}`,
      }),
    });
    const agent = new LlmAgent({ name: 'assistant', model: new StubLlm(), tools: [lookup] });
    const runner = new Runner({ appName: 'adk-app', agent, sessionService });
    await sessionService.createSession({ appName: 'adk-app', userId: 'u', sessionId: 'traced' });
    const tracer = trace.getTracer('app');
    const traceIds: string[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      await tracer.startActiveSpan(`turn ${turn}`, async (span) => {
        traceIds.push(span.spanContext().traceId);
        for await (const _event of runner.runAsync({
          userId: 'u',
          sessionId: 'traced',
          newMessage: { role: 'user', parts: [{ text: `Question ${turn}, please look it up.` }] },
        })) {
        }
        span.end();
      });
    }
    const spans = exporter.getFinishedSpans();
    const ids = new Set(spans.map((span) => span.spanContext().spanId));
    const compactions = spans.filter((span) => span.name.startsWith('orrery.compaction '));
    expect(compactions.length).toBeGreaterThan(0);
    for (const compaction of compactions) {
      expect(traceIds).toContain(compaction.spanContext().traceId);
      expect(ids).toContain(compaction.parentSpanContext?.spanId);
    }
  });
});
