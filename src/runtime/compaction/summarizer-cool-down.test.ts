import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { hungSummarizer, timed } from '../test-helpers/hung-summarizer.js';
import { Runner } from '../turn/runner.js';
import type { CompactionReport } from './compactor.js';
import { SummarizerCoolDown } from './summarizer-cool-down.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

function longAnswer(index: number) {
  return textResponse(`answer ${index} ${'word '.repeat(400)}`, { promptTokenCount: 500 });
}

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

interface Turns {
  durationsMs: number[];
  callsPerTurn: number[];
  reports: CompactionReport[];
  metrics: string;
  lines: Record<string, unknown>[];
}

/**
 * `turns` turns one after another with `pauseMs` of the user's time between them, every turn
 * over the token threshold, the summarizer hung, the default 120 s timeout.
 */
async function runTurns(options: {
  turns: number;
  pauseMs: number;
  fallback: boolean;
  summarizerCoolDownMs?: number;
  maxRequestBytes?: number;
}): Promise<Turns & { requestBytes: number[] }> {
  vi.useFakeTimers();
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const summarizer = hungSummarizer();
  const reports: CompactionReport[] = [];
  const lines: string[] = [];
  const model = new ScriptedModel({
    script: Array.from({ length: options.turns }, (_, index) => longAnswer(index)),
  });
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({ name: 'agent', model }),
    sessionService,
    compaction: {
      tokenThreshold: 100,
      eventRetentionSize: 0,
      ...(options.summarizerCoolDownMs === undefined
        ? {}
        : { summarizerCoolDownMs: options.summarizerCoolDownMs }),
      ...(options.maxRequestBytes === undefined
        ? {}
        : { maxRequestBytes: options.maxRequestBytes }),
    },
    summarizer,
    ...(options.fallback ? {} : { fallbackSummarizer: null }),
    plugins: [{ name: 'reports', afterCompaction: ({ report }) => void reports.push(report) }],
    logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
  });
  const durationsMs: number[] = [];
  const callsPerTurn: number[] = [];
  for (let turn = 0; turn < options.turns; turn++) {
    const before = summarizer.calls;
    durationsMs.push(
      await timed(() => collect(runner.run({ ...key, newMessage: `question ${turn}` }))),
    );
    callsPerTurn.push(summarizer.calls - before);
    await vi.advanceTimersByTimeAsync(options.pauseMs);
  }
  return {
    durationsMs,
    callsPerTurn,
    reports,
    metrics: await runner.metrics.registry.metrics(),
    lines: lines.map((line) => JSON.parse(line)),
    requestBytes: model.calls.map((call) => JSON.stringify(call.contents).length),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a runaway summarizer (never answers, default timeout)', () => {
  it('costs one timeout, then is skipped while it cools down: never two waits in one turn', async () => {
    const turns = await runTurns({ turns: 8, pauseMs: 0, fallback: false });
    // Before the cool-down: 120 s on the first turn, then 240 s (two waits) on every other.
    expect(turns.durationsMs).toEqual([120_000, 0, 0, 0, 0, 0, 0, 0]);
    expect(turns.callsPerTurn).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    const skipped = turns.reports.filter((report) => report.coolDown && 'cause' in report.coolDown);
    expect(skipped.length).toBeGreaterThanOrEqual(14);
    expect(skipped.every((report) => report.outcome === 'skipped')).toBe(true);
    expect(skipped.at(-1)?.coolDown).toMatchObject({
      summarizer: 'hung',
      failures: 1,
      skipped: skipped.length,
      cause: 'cooling_down',
    });
    expect(skipped.at(-1)?.reason).toMatch(/summarizer 'hung' not called: cooling down until/);
    expect(turns.metrics).toContain(
      `orrery_summarizer_skips_total{summarizer="hung"} ${skipped.length}`,
    );
    const skipLine = turns.lines.find((line) => line.coolDownCause === 'cooling_down');
    expect(skipLine).toMatchObject({
      msgType: 'compaction',
      outcome: 'skipped',
      coolDownSkipped: 1,
    });
  });

  it('probes again after a growing cool-down: at most one wait per turn', async () => {
    // 100 s of the user's time between turns: the 60 s cool-down ends, the next is 120 s, ...
    const turns = await runTurns({ turns: 10, pauseMs: 100_000, fallback: false });
    expect(Math.max(...turns.durationsMs)).toBe(120_000);
    expect(Math.max(...turns.callsPerTurn)).toBe(1);
    // Failures at turns 1, 2, 4, 7: each cool-down twice the one before.
    expect(turns.callsPerTurn).toEqual([1, 1, 0, 1, 0, 0, 1, 0, 0, 0]);
    const failures = turns.reports.filter((report) => report.outcome === 'failed');
    expect(failures.map((report) => report.coolDown?.failures)).toEqual([1, 2, 3, 4]);
  });

  it('with the digest fallback: the first turn waits once, the next compact at once', async () => {
    const turns = await runTurns({ turns: 6, pauseMs: 0, fallback: true });
    expect(turns.durationsMs[0]).toBe(120_000);
    expect(turns.durationsMs.slice(1)).toEqual([0, 0, 0, 0, 0]);
    expect(turns.callsPerTurn).toEqual([1, 0, 0, 0, 0, 0]);
  });

  it('when the request no longer fits, the byte ceiling applies without waiting again', async () => {
    const turns = await runTurns({
      turns: 6,
      pauseMs: 0,
      fallback: false,
      maxRequestBytes: 6_000,
    });
    expect(turns.durationsMs).toEqual([120_000, 0, 0, 0, 0, 0]);
    expect(turns.callsPerTurn).toEqual([1, 0, 0, 0, 0, 0]);
    // Overflow attempts were made and spared the wait; every request stayed under the ceiling.
    const overflow = turns.reports.filter((report) => report.trigger === 'overflow');
    expect(overflow.length).toBeGreaterThan(0);
    expect(overflow.every((report) => report.outcome === 'skipped' && report.coolDown)).toBe(true);
    expect(Math.max(...turns.requestBytes)).toBeLessThanOrEqual(6_000);
  });

  it('when the request no longer fits, the fallback writes without waiting again', async () => {
    const turns = await runTurns({ turns: 6, pauseMs: 0, fallback: true, maxRequestBytes: 6_000 });
    expect(turns.callsPerTurn).toEqual([1, 0, 0, 0, 0, 0]);
    expect(turns.durationsMs.slice(1)).toEqual([0, 0, 0, 0, 0]);
    const written = turns.reports.filter(
      (report) => report.trigger === 'overflow' && report.outcome === 'compacted',
    );
    expect(written.length).toBeGreaterThan(0);
    expect(written[0]).toMatchObject({
      summarizer: 'digest',
      usedFallback: true,
      coolDown: { summarizer: 'hung', cause: 'cooling_down' },
      fallback: { from: 'hung', reason: expect.stringMatching(/not called: cooling down/) },
    });
    expect(Math.max(...turns.requestBytes)).toBeLessThanOrEqual(6_000);
  });

  it('summarizerCoolDownMs: 0 turns it off (the old cost, measured: two waits a turn)', async () => {
    const turns = await runTurns({
      turns: 3,
      pauseMs: 0,
      fallback: false,
      summarizerCoolDownMs: 0,
    });
    expect(turns.durationsMs).toEqual([120_000, 240_000, 240_000]);
    expect(turns.callsPerTurn).toEqual([1, 2, 2]);
  });
});

describe('SummarizerCoolDown', () => {
  const summarizer: EventsSummarizer = { name: 'main', summarize: async () => null };

  it('grows per failure in a row up to the maximum and ends on an answer', () => {
    let now = 0;
    const coolDown = new SummarizerCoolDown({ baseMs: 10, maxMs: 35, now: () => now });
    const fail = () => {
      const acquired = coolDown.acquire({ summarizer });
      if (!('permit' in acquired)) throw new Error('expected a permit');
      acquired.permit.settle('failed');
      return coolDown.describe(summarizer)?.untilMs;
    };
    expect(fail()).toBe(10);
    now = 10;
    expect(fail()).toBe(30);
    now = 29;
    expect(coolDown.acquire({ summarizer })).toMatchObject({
      coolDown: { cause: 'cooling_down', failures: 2, skipped: 1 },
    });
    now = 30;
    expect(fail()).toBe(65);
    now = 65;
    expect(fail()).toBe(100);
    now = 100;
    // The first attempt after the cool-down probes; the others do not join it.
    const acquired = coolDown.acquire({ summarizer });
    expect('permit' in acquired).toBe(true);
    expect(coolDown.acquire({ summarizer })).toMatchObject({
      coolDown: { cause: 'probe_in_flight' },
    });
    if ('permit' in acquired) acquired.permit.settle('answered');
    expect(coolDown.describe(summarizer)).toBeUndefined();
    expect('permit' in coolDown.acquire({ summarizer })).toBe(true);
  });

  it('never calls a summarizer twice in the turn it failed in, whatever the clock says', () => {
    let now = 0;
    const coolDown = new SummarizerCoolDown({ baseMs: 10, maxMs: 10, now: () => now });
    const first = coolDown.acquire({ summarizer, turnId: 'turn-1' });
    if ('permit' in first) first.permit.settle('failed');
    now = 1_000;
    expect(coolDown.acquire({ summarizer, turnId: 'turn-1' })).toMatchObject({
      coolDown: { cause: 'failed_this_turn' },
    });
    expect('permit' in coolDown.acquire({ summarizer, turnId: 'turn-2' })).toBe(true);
  });

  it('a caller abort is not a failure; baseMs 0 keeps no state', () => {
    const coolDown = new SummarizerCoolDown({ baseMs: 10, maxMs: 10, now: () => 0 });
    const first = coolDown.acquire({ summarizer });
    if ('permit' in first) first.permit.settle('aborted');
    expect(coolDown.describe(summarizer)).toBeUndefined();
    const off = new SummarizerCoolDown({ baseMs: 0, maxMs: 10, now: () => 0 });
    const failed = off.acquire({ summarizer });
    if ('permit' in failed) failed.permit.settle('failed');
    expect('permit' in off.acquire({ summarizer })).toBe(true);
  });
});
