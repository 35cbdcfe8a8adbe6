/**
 * The session service's compaction spans: `orrery.compaction` inside the trace the app and
 * ADK-JS have active during `runner.runAsync` (in-memory exporter, AsyncLocalStorage context
 * manager): same trace as the app's span, parent one of its spans (the app's or ADK's own).
 */
import {
  BaseLlm,
  type BaseLlmConnection,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LOAD_MEMORY,
  Runner,
} from '@google/adk';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { captureSpans } from '../shared/test-helpers/span-capture.js';
import { OrreryAdkMemoryService } from './orrery-adk-memory-service.js';
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

  it('records each memory search and add as orrery.memory under the active span, no text', async () => {
    const store = new InMemorySessionService();
    const sessionService = new OrreryAdkSessionService({
      sessionService: store,
      compaction: null,
      logger: false,
    });
    const memoryService = new OrreryAdkMemoryService({ sessionService: store, limit: 5 });
    const agent = new LlmAgent({
      name: 'assistant',
      model: new MemoryStubLlm(),
      tools: [LOAD_MEMORY],
    });
    const runner = new Runner({ appName: 'adk-app', agent, sessionService, memoryService });
    const run = async (sessionId: string, text: string) => {
      await sessionService.createSession({ appName: 'adk-app', userId: 'u', sessionId });
      for await (const _event of runner.runAsync({
        userId: 'u',
        sessionId,
        newMessage: { role: 'user', parts: [{ text }] },
      })) {
      }
    };
    await run('first', 'remember: the locker code is 5512');
    const first = await sessionService.getSession({
      appName: 'adk-app',
      userId: 'u',
      sessionId: 'first',
    });
    exporter.reset();
    const tracer = trace.getTracer('app');
    const traceId = await tracer.startActiveSpan('app turn', async (span) => {
      await memoryService.addSessionToMemory(first!);
      await run('second', 'what is the locker code');
      span.end();
      return span.spanContext().traceId;
    });
    const spans = exporter.getFinishedSpans();
    const ids = new Set(spans.map((span) => span.spanContext().spanId));
    const memory = spans.filter((span) => span.name.startsWith('orrery.memory '));
    expect(memory.map((span) => span.name)).toEqual(['orrery.memory add', 'orrery.memory search']);
    for (const span of memory) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(ids).toContain(span.parentSpanContext?.spanId);
      // Counts only: neither the query nor a memory's text.
      expect(JSON.stringify(span.attributes)).not.toMatch(/locker|5512/);
    }
    expect(memory[0]?.attributes).toMatchObject({
      'orrery.memory.operation': 'add',
      'gen_ai.conversation.id': 'first',
      'orrery.memory.events': 2,
    });
    expect(memory[1]?.attributes).toMatchObject({
      'orrery.memory.operation': 'search',
      'orrery.memory.limit': 5,
    });
    // What load_memory found (the first session's question at least), within the limit.
    const results = Number(memory[1]?.attributes['orrery.memory.results']);
    expect(results).toBeGreaterThanOrEqual(1);
    expect(results).toBeLessThanOrEqual(5);
  });
});

/** Answers "remember ..." with "ok", any other message with one load_memory call, then "ok". */
class MemoryStubLlm extends BaseLlm {
  constructor() {
    super({ model: 'memory-stub' });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const last = request.contents.at(-1);
    const text = last?.parts?.[0]?.text ?? '';
    if (last?.role === 'user' && text !== '' && !text.startsWith('remember')) {
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'load_memory', args: { query: text } } }],
        },
      };
      return;
    }
    yield { content: { role: 'model', parts: [{ text: 'ok' }] } };
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connection');
  }
}
