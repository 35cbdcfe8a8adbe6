import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { SummarizerError } from '../../summarizers/errors.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from '../turn/runner.js';
import { Compactor } from './compactor.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** A summarizer that never answers and ignores its signal (the worst case). */
function hungSummarizer() {
  const signals: AbortSignal[] = [];
  let called!: () => void;
  const calledOnce = new Promise<void>((resolve) => {
    called = resolve;
  });
  const summarizer: EventsSummarizer = {
    name: 'hung',
    summarize(options) {
      if (options.signal) signals.push(options.signal);
      called();
      return new Promise(() => {});
    },
  };
  return { summarizer, signals, calledOnce };
}

function longAnswer() {
  return textResponse(`answer ${'word '.repeat(400)}`, { promptTokenCount: 500 });
}

async function setup() {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  return sessionService;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a summarizer that never answers', () => {
  it('times out after summarizerTimeoutMs: the fallback writes the summary, the failure is counted and logged, the turn completes', async () => {
    vi.useFakeTimers();
    const sessionService = await setup();
    const { summarizer, signals, calledOnce } = hungSummarizer();
    const lines: string[] = [];
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [longAnswer()] }) }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0, summarizerTimeoutMs: 50 },
      summarizer,
      logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }),
    });
    let finished = false;
    const turn = collect(runner.run({ ...key, newMessage: 'hi' })).finally(() => {
      finished = true;
    });
    await calledOnce;
    await vi.advanceTimersByTimeAsync(49);
    expect(finished).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const events = await turn;
    expect(events.at(-1)?.content?.parts[0]?.text).toMatch(/^answer/);

    // The summarizer's signal fired with the timeout.
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    const reason = signals[0]?.reason;
    expect(SummarizerError.isInstance(reason) && reason.reason).toBe('timeout');

    const { checkpoint } = await sessionService.loadView(key);
    expect(checkpoint?.actions.compaction.summarizer).toBe('digest');
    expect(checkpoint?.actions.compaction.fallback).toEqual({
      from: 'hung',
      reason: expect.stringMatching(/reason=timeout.*summarizerTimeoutMs=50/),
    });
    const metrics = await runner.metrics.registry.metrics();
    expect(metrics).toMatch(/orrery_summarizer_failures_total\{summarizer="hung"\} 1/);
    expect(metrics).toMatch(/orrery_summarizer_fallbacks_total\{from="hung",to="digest"\} 1/);
    const failure = lines
      .map((line) => JSON.parse(line))
      .find((line) => line.summarizer === 'hung');
    expect(failure).toMatchObject({ msgType: 'summarizer_failure', summarizer: 'hung' });
    expect(failure.error).toMatch(/timeout/);
  });

  it("ends the turn as soon as the run's signal aborts, even though the summarizer ignores it", async () => {
    const sessionService = await setup();
    const { summarizer, signals, calledOnce } = hungSummarizer();
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [longAnswer()] }) }),
      sessionService,
      // The default timeout (120 s) is far away: only the abort can end this wait.
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      summarizer,
      fallbackSummarizer: null,
      logger: false,
    });
    const controller = new AbortController();
    const turn = collect(runner.run({ ...key, newMessage: 'hi', signal: controller.signal }));
    await calledOnce;
    controller.abort();
    await expect(turn).rejects.toMatchObject({ name: 'AbortError' });
    expect(signals[0]?.aborted).toBe(true);
    expect((await sessionService.loadView(key)).checkpoint).toBeUndefined();
  });

  it('background: the next turn waits for the hung compaction only until the timeout, and no more', async () => {
    vi.useFakeTimers();
    const sessionService = await setup();
    const { summarizer, signals, calledOnce } = hungSummarizer();
    const model = new ScriptedModel({ script: [longAnswer(), textResponse('second answer')] });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0, summarizerTimeoutMs: 1_000 },
      summarizer,
      fallbackSummarizer: null,
      logger: false,
      background: true,
    });
    await collect(runner.run({ ...key, newMessage: 'one' }));
    await calledOnce;
    let finished = false;
    const second = collect(runner.run({ ...key, newMessage: 'two' })).finally(() => {
      finished = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(finished).toBe(false);
    expect(signals).toHaveLength(1);
    // The background attempt times out; the turn's own pre-call compaction does not call the
    // summarizer again while it cools down (docs/resilience.md): one wait, not two.
    await vi.advanceTimersByTimeAsync(1);
    const events = await second;
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(model.calls).toHaveLength(2);
    expect(events.at(-1)?.content?.parts[0]?.text).toBe('second answer');
    // The failed attempt wrote nothing; the store holds both turns whole.
    expect((await sessionService.loadView(key)).checkpoint).toBeUndefined();
    expect((await sessionService.listEvents(key)).events).toHaveLength(4);
  });
});

describe('Compactor summarizer timeout', () => {
  it('reports a timed-out summarizer without a fallback as failed, naming the timeout', async () => {
    vi.useFakeTimers();
    const sessionService = await setup();
    await sessionService.appendEvent({
      ...key,
      event: {
        id: 'e1',
        invocationId: 'i1',
        author: 'user',
        timestamp: 1,
        content: { role: 'user', parts: [{ text: 'x'.repeat(2000) }] },
        actions: {},
      },
    });
    const { summarizer } = hungSummarizer();
    const failures: string[] = [];
    const compactor = new Compactor({
      sessionService,
      config: { tokenThreshold: 10, eventRetentionSize: 0, summarizerTimeoutMs: 10, summarizer },
      hooks: { summarizerFailed: ({ summarizer: name }) => failures.push(name) },
    });
    const attempt = compactor.compact({ ...key, trigger: 'manual' });
    await vi.advanceTimersByTimeAsync(10);
    const report = await attempt;
    expect(report.outcome).toBe('failed');
    expect(report.reason).toMatch(/reason=timeout/);
    expect(failures).toEqual(['hung']);
  });
});
