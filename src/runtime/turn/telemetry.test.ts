import { context, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from './runner.js';

const key = { appName: 'otel', userId: 'u', sessionId: 's1' };
const exporter = new InMemorySpanExporter();

beforeAll(() => {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
});

afterAll(() => {
  trace.disable();
  context.disable();
});

async function drain(events: AsyncIterable<Event>): Promise<void> {
  for await (const _event of events);
}

function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

describe('OpenTelemetry spans (gen_ai semantic conventions)', () => {
  it('a run with a tool call and a compaction: invoke_agent > chat, execute_tool, compaction', async () => {
    exporter.reset();
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const model = new ScriptedModel({
      modelId: 'google:gemini-2.5-flash',
      script: [
        toolCallResponse([{ id: 'call-7', name: 'lookup', args: { city: 'Oslo' } }], {
          promptTokenCount: 120,
          candidatesTokenCount: 8,
          cachedContentTokenCount: 100,
        }),
        textResponse(`It is sunny. ${'detail '.repeat(400)}`, {
          promptTokenCount: 140,
          candidatesTokenCount: 30,
        }),
      ],
    });
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'weather',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, sky: 'sunny' }),
    });
    const summarizer: EventsSummarizer = {
      name: 'tiny',
      summarize: async () => ({ content: { role: 'model', parts: [{ text: 'summary' }] } }),
    };
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'weather', model, tools: [lookup] }),
      sessionService,
      compaction: { tokenThreshold: 200, eventRetentionSize: 1 },
      summarizer,
      logger: false,
    });
    await drain(runner.run({ ...key, newMessage: 'Weather in Oslo?' }));

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name);
    expect(byName('invoke_agent weather')).toHaveLength(1);
    const [agent] = byName('invoke_agent weather');
    expect(parentId(agent!)).toBeUndefined();
    expect(agent!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'weather',
      'gen_ai.conversation.id': 's1',
      'gen_ai.provider.name': 'google',
      'gen_ai.request.model': 'gemini-2.5-flash',
    });
    const agentId = agent!.spanContext().spanId;

    const chats = byName('chat gemini-2.5-flash');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(parentId(chat)).toBe(agentId);
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'google',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 8,
      'gen_ai.usage.cache_read.input_tokens': 100,
    });
    // A list, per the conventions, not a string.
    expect(chats[0]!.attributes['gen_ai.response.finish_reasons']).toEqual(['tool-calls']);
    expect(chats[1]!.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    expect(chats[1]!.attributes['gen_ai.usage.input_tokens']).toBe(140);

    const [tool] = byName('execute_tool lookup');
    expect(parentId(tool!)).toBe(agentId);
    expect(tool!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup',
      'gen_ai.tool.call.id': 'call-7',
      'gen_ai.tool.type': 'function',
    });

    const [compaction] = byName('orrery.compaction token_threshold');
    expect(parentId(compaction!)).toBe(agentId);
    expect(compaction!.attributes).toMatchObject({
      'orrery.compaction.trigger': 'token_threshold',
      'orrery.compaction.outcome': 'compacted',
      'orrery.compaction.summarizer': 'tiny',
    });
    expect(compaction!.attributes['orrery.compaction.tokens_before']).toBeGreaterThan(200);
    // Every child ends before its parent.
    expect(spans.at(-1)!.name).toBe('invoke_agent weather');

    // The same calls in the Prometheus registry: tokens, cached input, the hit ratio.
    const text = await runner.metrics.registry.metrics();
    expect(text).toContain(
      'orrery_model_requests_total{model="google:gemini-2.5-flash",outcome="ok"} 2',
    );
    expect(text).toContain(
      'orrery_model_tokens_total{model="google:gemini-2.5-flash",type="input"} 260',
    );
    expect(text).toContain(
      'orrery_model_tokens_total{model="google:gemini-2.5-flash",type="cached_input"} 100',
    );
    expect(text).toContain(
      `orrery_prompt_cache_hit_ratio{model="google:gemini-2.5-flash"} ${100 / 260}`,
    );
    expect(text).not.toContain('orrery_prompt_cache_invalidations_total');
  });

  it('a failing tool marks its span failed; the run goes on', async () => {
    exporter.reset();
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const model = new ScriptedModel({
      script: [toolCallResponse([{ id: 'c1', name: 'broken' }]), textResponse('done')],
    });
    const broken = new FunctionTool({
      name: 'broken',
      description: 'fails',
      parameters: z.object({}),
      execute: async () => {
        throw new TypeError('no such city');
      },
    });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'weather', model, tools: [broken] }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await drain(runner.run({ ...key, newMessage: 'go' }));
    const [tool] = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool broken');
    expect(tool!.status).toEqual({ code: 2, message: 'no such city' });
    expect(tool!.attributes['error.type']).toBe('TypeError');
    // The exception event: type, message, stack.
    expect(tool!.events.map((event) => event.name)).toEqual(['exception']);
    expect(tool!.events[0]!.attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': 'no such city',
    });
    expect(tool!.events[0]!.attributes?.['exception.stacktrace']).toContain('TypeError');
  });

  it('a model answer with a response id and model puts both on its chat span', async () => {
    exporter.reset();
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const model = new ScriptedModel({
      modelId: 'openai:gpt-4o',
      script: [
        {
          ...textResponse('hello'),
          responseId: 'chatcmpl-42',
          responseModel: 'gpt-4o-2024-08-06',
        },
      ],
    });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'greeter', model }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await drain(runner.run({ ...key, newMessage: 'hi' }));
    const [chat] = exporter.getFinishedSpans().filter((span) => span.name === 'chat gpt-4o');
    expect(chat!.attributes).toMatchObject({
      'gen_ai.response.id': 'chatcmpl-42',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.response.finish_reasons': ['stop'],
    });
  });
});
