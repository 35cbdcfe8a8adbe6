import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import { getFunctionResponses, getText } from '../events/event-helpers.js';
import type { Event } from '../events/types.js';
import { ModelError } from '../models/errors.js';
import { SessionNotFoundError } from '../sessions/errors.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../testing/scripted-model.js';
import { LlmAgent } from './agents/llm-agent.js';
import type { Plugin } from './plugins/plugin.js';
import { Runner } from './runner.js';
import { FunctionTool } from './tools/function-tool.js';

const appName = 'unit';
const userId = 'u';

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function setup(sessionId = 's') {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession({ appName, userId, sessionId });
  return sessionService;
}

const echo = new FunctionTool({
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  execute: async (args) => args.text,
});

describe('Runner plugins', () => {
  it('runs hooks in order and applies their short-circuits and replacements', async () => {
    const sessionService = await setup();
    const seen: string[] = [];
    const first: Plugin = {
      name: 'first',
      beforeRun: () => {
        seen.push('beforeRun');
      },
      beforeModel: (context) => {
        seen.push(`beforeModel:${context.modelId}`);
        // The second model call never reaches the model.
        if (seen.filter((entry) => entry.startsWith('beforeModel')).length === 2) {
          return textResponse('from the plugin');
        }
      },
      beforeTool: (context) => (context.args.text === 'skip' ? 'skipped by plugin' : undefined),
      afterTool: (context) => `${String(context.result)}!`,
      onEvent: (context) =>
        context.event.author === 'user'
          ? undefined
          : { ...context.event, customMetadata: { tagged: true } },
      afterRun: () => {
        seen.push('afterRun');
      },
    };
    const second: Plugin = {
      name: 'second',
      afterTool: (context) => `${String(context.result)}?`,
    };
    const model = new ScriptedModel({
      modelId: 'scripted:main',
      script: [
        toolCallResponse([
          { id: 'a', name: 'echo', args: { text: 'hello' } },
          { id: 'b', name: 'echo', args: { text: 'skip' } },
        ]),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model, tools: [echo] }),
      sessionService,
      compaction: null,
      plugins: [first, second],
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(seen).toEqual([
      'beforeRun',
      'beforeModel:scripted:main',
      'beforeModel:scripted:main',
      'afterRun',
    ]);
    expect(getFunctionResponses(events[2]!).map((response) => response.response)).toEqual([
      { result: 'hello!?' },
      { result: 'skipped by plugin!?' },
    ]);
    expect(getText(events[3]!)).toBe('from the plugin');
    expect(events[0]!.customMetadata).toBeUndefined();
    expect(events.slice(1).every((event) => event.customMetadata?.tagged === true)).toBe(true);
    expect(model.remaining).toBe(0);
  });

  it('beforeRun can answer the turn without running the agent', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      plugins: [
        { name: 'gate', beforeRun: () => ({ role: 'model', parts: [{ text: 'maintenance' }] }) },
      ],
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(events.map((event) => [event.author, getText(event)])).toEqual([
      ['user', 'hi'],
      ['agent', 'maintenance'],
    ]);
    expect(model.calls).toHaveLength(0);
  });

  it('beforeCompaction returning false skips the compaction', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [textResponse(`long ${'answer '.repeat(300)}`)] });
    const plans: number[] = [];
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      summarizer: { name: 'never', summarize: async () => null },
      plugins: [
        {
          name: 'veto',
          beforeCompaction: (context) => {
            plans.push(context.plan.endSeq);
            expect(context.sessionId).toBe('s');
            return false;
          },
        },
      ],
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(plans).toEqual([2]);
    expect(await runner.metrics.registry.metrics()).toMatch(
      /orrery_context_compaction_total\{trigger="token_threshold",outcome="skipped"\} 1/,
    );
  });
});

describe('Runner defaults', () => {
  it("summarizes with the agent's own model when no summarizer is given", async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({
      script: [
        textResponse(`first ${'answer '.repeat(300)}`),
        // The after-invocation compaction asks the same model for the summary.
        (request) => {
          expect(JSON.stringify(request.contents)).toContain('first answer');
          return textResponse('The user said hi; the agent answered at length.');
        },
        textResponse('second'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'again' }));
    expect(getText(model.calls[2]!.contents[0]!)).toContain(
      `${SUMMARY_PREFIX}The user said hi; the agent answered at length.`,
    );
  });

  it('falls back to the digest when the model summarizer fails, and counts the failure', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({
      modelId: 'scripted:agent',
      script: [
        textResponse(`first ${'answer '.repeat(300)}`),
        new ModelError({ kind: 'fatal', statusCode: 401, message: 'summarizer key revoked' }),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
    expect(checkpoint?.actions.compaction.summarizer).not.toBe('scripted:agent');
    expect(await runner.metrics.registry.metrics()).toMatch(
      /orrery_summarizer_failures_total\{summarizer="scripted:agent"\} 1/,
    );
  });

  it('throws for a missing session and stops on an aborted signal', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await expect(
      collect(runner.run({ userId, sessionId: 'nope', newMessage: 'hi' })),
    ).rejects.toThrow(SessionNotFoundError);
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect(runner.run({ userId, sessionId: 's', newMessage: 'hi', signal: controller.signal })),
    ).rejects.toThrow();
    expect(model.calls).toHaveLength(0);
  });
});
