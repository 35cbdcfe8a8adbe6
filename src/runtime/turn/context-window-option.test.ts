import { describe, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import { ModelConfigError } from '../../models/errors.js';
import { withContextWindow } from '../../models/with-context-window.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { MessageTooLargeError, RunnerConfigError } from '../errors.js';
import { Runner } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function drain(events: AsyncIterable<Event>): Promise<void> {
  for await (const _event of events);
}

async function runnerWith(contextWindowTokens: number | undefined) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const model = new ScriptedModel({ script: [textResponse('ok')] });
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model }),
    sessionService,
    compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 1 },
    summarizer: {
      name: 'unused',
      summarize: async () => ({ content: { role: 'model', parts: [] } }),
    },
    contextWindowTokens,
    logger: false,
  });
  return { runner, model };
}

describe('RunnerOptions.contextWindowTokens', () => {
  const longMessage = 'word '.repeat(2_000);

  it('is the window every model call is checked against', async () => {
    const { runner, model } = await runnerWith(500);
    const error = await drain(runner.run({ ...key, newMessage: longMessage })).catch((e) => e);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("contextWindowTokens of 'scripted'");
    expect(model.calls).toHaveLength(0);
  });

  it('is absent by default: a model without a known window gets the message', async () => {
    const { runner, model } = await runnerWith(undefined);
    await drain(runner.run({ ...key, newMessage: longMessage }));
    expect(model.calls).toHaveLength(1);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects %s with a RunnerConfigError', async (value) => {
    const error = await runnerWith(value).catch((e) => e);
    expect(RunnerConfigError.isInstance(error)).toBe(true);
    expect((error as RunnerConfigError).field).toBe('contextWindowTokens');
  });
});

describe('withContextWindow', () => {
  it('overrides the window and passes calls through', async () => {
    const model = new ScriptedModel({ script: [textResponse('hi')] });
    const wrapped = withContextWindow({ model, contextWindowTokens: 272_000 });
    expect(wrapped.contextWindowTokens).toBe(272_000);
    expect(wrapped.modelId).toBe(model.modelId);
    const response = await wrapped.generate({
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
    });
    expect(response.content.parts[0]?.text).toBe('hi');
    expect(model.calls).toHaveLength(1);
  });

  it('rejects a window that is not a positive integer, naming the field', () => {
    const model = new ScriptedModel({ script: [] });
    expect(() => withContextWindow({ model, contextWindowTokens: 0 })).toThrow(ModelConfigError);
  });
});
