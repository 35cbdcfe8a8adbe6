import { describe, expect, it, vi } from 'vitest';
import type { Event } from '../../events/types.js';
import { ModelError } from '../../models/errors.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent, type LlmAgentOptions } from '../agents/llm-agent.js';
import { RunnerConfigError } from '../errors.js';
import { Runner } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

const rateLimited = (retryAfterMs?: number) =>
  new ModelError({ kind: 'retryable', message: '429 rate limited', statusCode: 429, retryAfterMs });

async function runOnce(options: {
  model: ScriptedModel;
  agent?: Partial<LlmAgentOptions>;
  signal?: AbortSignal;
}) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model: options.model, ...options.agent }),
    sessionService,
    compaction: null,
    logger: false,
  });
  return collect(
    runner.run({
      userId: key.userId,
      sessionId: key.sessionId,
      newMessage: 'hi',
      signal: options.signal,
    }),
  );
}

describe('agent model calls: retryable provider errors back off and retry', () => {
  it('retries a retryable error (429, 503) and succeeds, honouring retryAfterMs', async () => {
    const model = new ScriptedModel({
      script: [rateLimited(30), rateLimited(), textResponse('answer')],
    });
    // Counted, not timed: the waits asked of the timer, the provider's 30 ms first.
    const timer = vi.spyOn(globalThis, 'setTimeout');
    const events = await runOnce({ model, agent: { modelRetry: { baseDelayMs: 1 } } });
    const waits = timer.mock.calls.map((call) => call[1]);
    timer.mockRestore();
    expect(events.at(-1)!.content?.parts[0]?.text).toBe('answer');
    expect(model.calls).toHaveLength(3);
    expect(waits).toContain(30);
  });

  it('gives up after maxRetries, and at once on fatal errors or a retry-after past the cap', async () => {
    const exhausted = new ScriptedModel({
      script: [rateLimited(), rateLimited(), textResponse('never')],
    });
    await expect(
      runOnce({ model: exhausted, agent: { modelRetry: { maxRetries: 1, baseDelayMs: 1 } } }),
    ).rejects.toThrow('429 rate limited');
    expect(exhausted.calls).toHaveLength(2);

    const fatal = new ScriptedModel({
      script: [new ModelError({ kind: 'fatal', message: 'bad key' }), textResponse('never')],
    });
    await expect(runOnce({ model: fatal })).rejects.toThrow('bad key');
    expect(fatal.calls).toHaveLength(1);

    const tooLong = new ScriptedModel({ script: [rateLimited(3_600_000), textResponse('never')] });
    await expect(runOnce({ model: tooLong })).rejects.toThrow('429 rate limited');
    expect(tooLong.calls).toHaveLength(1);
  });

  it('stops backing off when the run is aborted', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel({
      script: [
        () => {
          setTimeout(() => controller.abort(), 10);
          throw rateLimited();
        },
        textResponse('never'),
      ],
    });
    // A 10 s backoff: one that ignored the abort would outlast the test's timeout.
    await expect(
      runOnce({ model, agent: { modelRetry: { baseDelayMs: 10_000 } }, signal: controller.signal }),
    ).rejects.toThrow();
    expect(model.calls).toHaveLength(1);
  });

  it('validates the retry options, naming the field', () => {
    const model = new ScriptedModel({ script: [] });
    expect(() => new LlmAgent({ name: 'a', model, modelRetry: { maxRetries: -1 } })).toThrow(
      RunnerConfigError,
    );
    expect(() => new LlmAgent({ name: 'a', model, modelRetry: { baseDelayMs: 1.5 } })).toThrow(
      /modelRetry.baseDelayMs/,
    );
  });
});
