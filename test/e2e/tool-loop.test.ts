import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FunctionTool,
  getFunctionResponses,
  InMemorySessionService,
  LlmAgent,
  MaxStepsExceededError,
  Runner,
} from '../../src/index.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../src/testing/index.js';
import { appName, collect, deferred, fullHistory, userId } from './helpers.js';

describe('LlmAgent tool loop through the Runner', () => {
  it('runs parallel tools, returns errors to the model as data and yields stored events', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 's1', state: { count: 1 } });
    const started: string[] = [];
    const bothStarted = deferred();
    const slow = new FunctionTool({
      name: 'slow',
      description: 'waits until fast has started too',
      parameters: z.object({ label: z.string() }),
      execute: async (args, context) => {
        started.push('slow');
        if (started.length === 2) bothStarted.resolve();
        await bothStarted.promise;
        context.state.set('count', (context.state.get<number>('count') ?? 0) + 1);
        return `slow:${args.label}`;
      },
    });
    const fast = new FunctionTool({
      name: 'fast',
      description: 'starts second',
      parameters: z.object({}),
      execute: async () => {
        started.push('fast');
        if (started.length === 2) bothStarted.resolve();
        await bothStarted.promise;
        return { ok: true };
      },
    });
    const broken = new FunctionTool({
      name: 'broken',
      description: 'throws',
      parameters: z.object({}),
      execute: async () => {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel({
      script: [
        toolCallResponse([
          { id: 'a', name: 'slow', args: { label: 'x' } },
          { id: 'b', name: 'fast' },
        ]),
        toolCallResponse([
          { id: 'c', name: 'broken' },
          { id: 'd', name: 'slow', args: { label: 7 } },
          { id: 'e', name: 'missing' },
        ]),
        textResponse('done', { promptTokenCount: 50 }),
      ],
    });
    const agent = new LlmAgent({
      name: 'worker',
      model,
      instruction: 'be brief',
      tools: [slow, fast, broken],
    });
    const runner = new Runner({
      appName,
      agent,
      sessionService,
      compaction: null,
      logger: false,
    });

    const yielded = await collect(runner.run({ userId, sessionId: 's1', newMessage: 'go' }));

    expect(yielded.map((event) => event.author)).toEqual([
      'user',
      'worker',
      'worker',
      'worker',
      'worker',
      'worker',
    ]);
    expect(yielded.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(yielded.map((event) => event.invocationId)).size).toBe(1);
    // Both tools of one step ran at the same time, and their responses share one event.
    expect(started).toEqual(['slow', 'fast']);
    const firstResponses = yielded[2]!;
    expect(firstResponses.content?.role).toBe('user');
    expect(getFunctionResponses(firstResponses)).toEqual([
      { id: 'a', name: 'slow', response: { result: 'slow:x' } },
      { id: 'b', name: 'fast', response: { ok: true } },
    ]);
    expect(firstResponses.actions.stateDelta).toEqual({ count: 2 });
    const secondResponses = getFunctionResponses(yielded[4]!);
    expect(secondResponses[0]!.response).toEqual({ error: 'disk on fire' });
    expect(String(secondResponses[1]!.response.error)).toMatch(/'label'/);
    expect(String(secondResponses[2]!.response.error)).toMatch(
      /'missing' is not available.*slow, fast, broken/,
    );
    expect(yielded[5]!.usageMetadata).toEqual({ promptTokenCount: 50 });

    // What the model saw: the system instruction, the tools and the whole conversation so far.
    expect(model.calls).toHaveLength(3);
    expect(model.calls[0]!.systemInstruction).toBe('be brief');
    expect(model.calls[0]!.tools?.map((tool) => tool.name)).toEqual(['slow', 'fast', 'broken']);
    expect(model.calls[2]!.contents.length).toBeGreaterThanOrEqual(5);
    expect(await fullHistory(sessionService, 's1')).toEqual(yielded);
    const session = await sessionService.getSession({ appName, userId, sessionId: 's1' });
    expect(session?.state.count).toBe(2);
  });

  it('stops a model that keeps calling tools at maxSteps', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 's2' });
    const echo = new FunctionTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({}),
      execute: async () => 'again',
    });
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: '1', name: 'echo' }]),
        toolCallResponse([{ id: '2', name: 'echo' }]),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'looper', model, tools: [echo], maxSteps: 2 }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await expect(
      collect(runner.run({ userId, sessionId: 's2', newMessage: 'loop' })),
    ).rejects.toThrow(MaxStepsExceededError);
    expect(model.remaining).toBe(0);
  });

  it('marks calls to long-running tools on the model event', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 's3' });
    const approve = new FunctionTool({
      name: 'request_approval',
      description: 'asks a human',
      parameters: z.object({}),
      isLongRunning: true,
      execute: async () => ({ status: 'pending' }),
    });
    const model = new ScriptedModel({
      script: [toolCallResponse([{ id: 'lr-1', name: 'request_approval' }]), textResponse('ok')],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'asker', model, tools: [approve] }),
      sessionService,
      compaction: null,
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 's3', newMessage: 'ask' }));
    expect(events[1]!.longRunningToolIds).toEqual(['lr-1']);
  });
});
