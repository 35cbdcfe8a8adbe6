import { describe, expect, it } from 'vitest';
import type {
  CompactionPlan,
  EventsCompactionConfig,
  EventsSummarizer,
  SummarizeOptions,
  Summary,
} from '../../compaction/types.js';
import { activeView, SUMMARY_PREFIX } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { Event, NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import {
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { deadCallsNote } from './compaction-event.js';
import { type CompactionReport, Compactor } from './compactor.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };

/** A summarizer that records what it saw and answers from a script. */
class RecordingSummarizer implements EventsSummarizer {
  readonly calls: SummarizeOptions[] = [];
  constructor(
    readonly name: string,
    private readonly answer: (options: SummarizeOptions, index: number) => Summary | null,
  ) {}
  async summarize(options: SummarizeOptions): Promise<Summary | null> {
    this.calls.push(options);
    return this.answer(options, this.calls.length - 1);
  }
}

const text = (value: string): Summary => ({
  content: { role: 'model', parts: [{ text: value }] },
  usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 3 },
});

const failing = (name: string, message: string) =>
  new RecordingSummarizer(name, () => {
    throw new Error(message);
  });

async function setup() {
  const service = new InMemorySessionService();
  await service.createSession(key);
  let clock = 1000;
  /** Appends with a clock that ticks once an event, so timestamps are predictable. */
  const append = (event: NewEvent) =>
    service.appendEvent({ ...key, event: { ...event, timestamp: ++clock } });
  const user = (invocationId: string, text: string) =>
    append(userTextEvent({ invocationId, text }));
  const model = (invocationId: string, text: string) =>
    append(modelTextEvent({ invocationId, text }));
  const calls = (invocationId: string, ids: string[]) =>
    append(functionCallEvent({ invocationId, calls: ids }));
  const responses = (invocationId: string, ids: string[]) =>
    append(functionResponseEvent({ invocationId, responses: ids }));
  const invocation = async (number: number) => {
    await user(`inv${number}`, `request ${number}`);
    await calls(`inv${number}`, [`c${number}`]);
    await responses(`inv${number}`, [`c${number}`]);
    await model(`inv${number}`, `reply ${number}`);
  };
  const full = async () =>
    (await service.getSession({ ...key, events: 'full' }))!.events as Event[];
  return { service, append, user, model, calls, responses, invocation, full };
}

const threshold: EventsCompactionConfig = {
  tokenThreshold: 1,
  eventRetentionSize: 2,
  retentionTokenBudget: 100_000,
};

describe('Compactor', () => {
  it('needs a summarizer', async () => {
    const { service } = await setup();
    expect(() => new Compactor({ sessionService: service, config: threshold })).toThrow(
      /summarizer/,
    );
  });

  it('summarizes, appends conditionally and reports (token threshold)', async () => {
    const { service, user, model, full } = await setup();
    for (let index = 1; index <= 3; index++) {
      await user(`i${index}`, `question ${index}`);
      await model(`i${index}`, `answer ${index}`);
    }
    const summarizer = new RecordingSummarizer('digest', () => text('they asked three things'));
    const reports: CompactionReport[] = [];
    const plans: CompactionPlan[] = [];
    const compactor = new Compactor({
      sessionService: service,
      config: { ...threshold, tokenThreshold: 10_000 },
      summarizer,
      hooks: {
        beforeCompaction: (plan) => {
          plans.push(plan);
        },
        afterCompaction: (report) => {
          reports.push(report);
        },
      },
    });
    const below = await compactor.compact({ ...key, trigger: 'token_threshold' });
    expect(below).toEqual(
      expect.objectContaining({ outcome: 'skipped', reason: 'below_threshold' }),
    );
    expect(summarizer.calls).toHaveLength(0);

    const forced = new Compactor({ sessionService: service, config: threshold, summarizer });
    const report = await forced.compact({ ...key, trigger: 'token_threshold', overheadTokens: 7 });
    expect(report.outcome).toBe('compacted');
    expect(summarizer.calls[0]!.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(summarizer.calls[0]!.previousSummary).toBeUndefined();
    const event = report.event!;
    expect(event).toEqual(
      expect.objectContaining({
        author: 'user',
        seq: 7,
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 3 },
      }),
    );
    expect(event.content).toBeUndefined();
    expect(event.actions.compaction).toEqual(
      expect.objectContaining({
        startSeq: 1,
        endSeq: 4,
        startTimestamp: 1001,
        endTimestamp: 1004,
        trigger: 'token_threshold',
        summarizer: 'digest',
        compactedContent: { role: 'model', parts: [{ text: 'they asked three things' }] },
        tokensBefore: report.tokensBefore,
        tokensAfter: report.tokensAfter,
      }),
    );
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
    expect(report.ineffective).toBe(true); // threshold 1: nothing fits under it
    const view = activeView({ events: await full() });
    expect(view.contents[0]!.parts[0]!.text).toBe(`${SUMMARY_PREFIX}they asked three things`);
    expect(view.events.map((stored) => stored.seq)).toEqual([5, 6]);
    expect(reports.map((entry) => entry.outcome)).toEqual(['skipped']);
    expect(plans).toEqual([]);
  });

  it('marks a compaction effective when the estimate falls under the threshold', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 6; index++) await user(`i${index}`, 'x'.repeat(400));
    const compactor = new Compactor({
      sessionService: service,
      config: { tokenThreshold: 300, eventRetentionSize: 1 },
      summarizer: new RecordingSummarizer('short', () => text('short')),
    });
    const report = await compactor.compact({ ...key, trigger: 'token_threshold' });
    expect(report.outcome).toBe('compacted');
    expect(report.ineffective).toBe(false);
    expect(report.tokensAfter).toBeLessThan(300);
  });

  it('skips when the hook says no or the summarizer returns null', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 4; index++) await user(`i${index}`, `m${index}`);
    const vetoed = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('never', () => text('x')),
      hooks: { beforeCompaction: () => false },
    });
    expect(await vetoed.compact({ ...key, trigger: 'manual' })).toEqual(
      expect.objectContaining({ outcome: 'skipped', reason: 'hook', startSeq: 1, endSeq: 2 }),
    );
    const nothing = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('null', () => null),
    });
    expect(await nothing.compact({ ...key, trigger: 'manual' })).toEqual(
      expect.objectContaining({ outcome: 'skipped', reason: 'summarizer_skipped' }),
    );
    const view = await service.loadView(key);
    expect(view.checkpoint).toBeUndefined();
  });

  it('fails without throwing when the summarizer fails, and keeps the old view', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 4; index++) await user(`i${index}`, `m${index}`);
    const reports: CompactionReport[] = [];
    const compactor = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: failing('llm', 'provider is down'),
      hooks: { afterCompaction: (report) => void reports.push(report) },
    });
    const report = await compactor.compact({ ...key, trigger: 'token_threshold' });
    expect(report).toEqual(
      expect.objectContaining({ outcome: 'failed', reason: 'provider is down', summarizer: 'llm' }),
    );
    expect(report.error).toBeInstanceOf(Error);
    expect(reports).toEqual([report]);
    expect((await service.loadView(key)).checkpoint).toBeUndefined();
  });

  it('treats an empty summary as a failure and uses the fallback', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 4; index++) await user(`i${index}`, `m${index}`);
    const fallback = new RecordingSummarizer('digest', () => text('digest summary'));
    const compactor = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('llm', () => text('   ')),
      fallbackSummarizer: fallback,
    });
    const report = await compactor.compact({ ...key, trigger: 'token_threshold' });
    expect(report).toEqual(
      expect.objectContaining({ outcome: 'compacted', summarizer: 'digest', usedFallback: true }),
    );
    expect(report.event!.actions.compaction.summarizer).toBe('digest');
    expect(fallback.calls).toHaveLength(1);

    const both = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: failing('llm', 'down'),
      fallbackSummarizer: failing('digest', 'also down'),
    });
    await service.appendEvent({
      ...key,
      event: userTextEvent({ id: 'late', invocationId: 'i9', text: 'more', timestamp: 1 }),
    });
    await service.appendEvent({
      ...key,
      event: userTextEvent({ id: 'late2', invocationId: 'i9', text: 'more', timestamp: 1 }),
    });
    const failed = await both.compact({ ...key, trigger: 'token_threshold' });
    expect(failed.outcome).toBe('failed');
    expect(failed.reason).toContain('down');
    expect(failed.reason).toContain('also down');
  });

  it('records who wrote the summary and why a fallback ran, through every path', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 4; index++) await user(`i${index}`, `m${index}`);
    const compactor = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: failing(
        'google:gemini-flash-latest',
        'quota exceeded for https://generativelanguage.googleapis.com/v1beta/models?key=AIzaSecretKey123',
      ),
      fallbackSummarizer: new RecordingSummarizer('digest', () => text('digest summary')),
    });
    const report = await compactor.compact({ ...key, trigger: 'token_threshold' });
    const fallback = {
      from: 'google:gemini-flash-latest',
      reason:
        'quota exceeded for https://generativelanguage.googleapis.com/v1beta/models?key=[REDACTED:secret]',
    };
    expect(report).toMatchObject({ outcome: 'compacted', summarizer: 'digest', fallback });
    expect(report.event!.actions.compaction).toMatchObject({ summarizer: 'digest', fallback });

    // A wrapper that chose its own fallback (withFallback) is believed over its own name.
    for (let index = 4; index < 8; index++) await user(`i${index}`, `m${index}`);
    const wrapped = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('wrapper', () => ({
        ...text('by the inner fallback'),
        summarizer: 'digest',
        fallback: { from: 'llm', reason: 'down' },
      })),
    });
    const second = await wrapped.compact({ ...key, trigger: 'token_threshold' });
    expect(second).toMatchObject({ summarizer: 'digest', usedFallback: true });
    expect(second.event!.actions.compaction).toMatchObject({
      summarizer: 'digest',
      fallback: { from: 'llm', reason: 'down' },
    });

    // The primary wrote it: no fallback recorded.
    for (let index = 8; index < 12; index++) await user(`i${index}`, `m${index}`);
    const plain = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('llm', () => text('by the model')),
    });
    const third = await plain.compact({ ...key, trigger: 'token_threshold' });
    expect(third.event!.actions.compaction.summarizer).toBe('llm');
    expect(third.event!.actions.compaction.fallback).toBeUndefined();
    expect(third.fallback).toBeUndefined();
  });

  it('checks a hand-built config with the same rules as createEventsCompactionConfig', async () => {
    const { service } = await setup();
    const summarizer = new RecordingSummarizer('llm', () => text('x'));
    const build = (config: EventsCompactionConfig) => () =>
      new Compactor({ sessionService: service, config, summarizer });
    expect(build({ compactionInterval: 3 })).toThrow(/^Invalid overlapSize=undefined: must be set/);
    expect(build({})).toThrow(/^Invalid tokenThreshold=undefined: no trigger/);
    expect(build({ tokenThreshold: -5, eventRetentionSize: 1 })).toThrow(
      /^Invalid tokenThreshold=-5/,
    );
  });

  it('discards its result when another runner compacted first (conflict)', async () => {
    const { service, user } = await setup();
    for (let index = 0; index < 4; index++) await user(`i${index}`, `m${index}`);
    const winner = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: new RecordingSummarizer('fast', () => text('theirs')),
    });
    const racing = new Compactor({
      sessionService: service,
      config: threshold,
      summarizer: {
        name: 'racing',
        summarize: async () => {
          await winner.compact({ ...key, trigger: 'manual' });
          return text('mine');
        },
      },
    });
    const report = await racing.compact({ ...key, trigger: 'manual' });
    expect(report.outcome).toBe('conflict');
    const stored = (await service.getSession({ ...key, events: 'full' }))!.events;
    const summaries = stored
      .filter((event) => event.actions.compaction)
      .map((event) => getText(event.actions.compaction!.compactedContent));
    expect(summaries).toEqual(['theirs']);
  });

  it('notes dead calls in the summary', async () => {
    const { service, user, calls, model } = await setup();
    await user('i1', 'go');
    await calls('i1', ['lost']); // never answered
    await user('i2', 'hello?');
    await model('i2', 'hi');
    const compactor = new Compactor({
      sessionService: service,
      config: { ...threshold, eventRetentionSize: 1 },
      summarizer: new RecordingSummarizer('digest', () => text('summary')),
    });
    const report = await compactor.compact({ ...key, trigger: 'token_threshold' });
    expect(report.deadCalls).toEqual([
      { callId: 'lost', name: 'tool_lost', seq: 2, invocationId: 'i1' },
    ]);
    const summary = getText(report.event!.actions.compaction.compactedContent);
    expect(summary).toContain('summary');
    expect(summary).toContain(deadCallsNote(report.deadCalls!));
    expect(summary).toContain('tool_lost (lost)');
  });

  it('runs the documented sliding-window timeline, reading the overlap from the store', async () => {
    const { service, invocation, full } = await setup();
    const summarizer = new RecordingSummarizer('digest', (_options, index) =>
      text(index === 0 ? 'Summary A' : 'Summary B'),
    );
    const compactor = new Compactor({
      sessionService: service,
      config: { compactionInterval: 3, overlapSize: 1 },
      summarizer,
    });
    const after = () => compactor.compact({ ...key, trigger: 'sliding_window' });
    const outcomes: string[] = [];
    for (let number = 1; number <= 7; number++) {
      await invocation(number);
      outcomes.push((await after()).outcome);
    }
    expect(outcomes).toEqual([
      'skipped',
      'skipped',
      'compacted',
      'skipped',
      'skipped',
      'compacted',
      'skipped',
    ]);
    const invocations = (events: Event[]) => [
      ...new Set(events.map((event) => event.invocationId)),
    ];
    expect(invocations(summarizer.calls[0]!.events)).toEqual(['inv1', 'inv2', 'inv3']);
    expect(summarizer.calls[1]!.previousSummary).toEqual({
      role: 'model',
      parts: [{ text: 'Summary A' }],
    });
    expect(invocations(summarizer.calls[1]!.events)).toEqual(['inv3', 'inv4', 'inv5', 'inv6']);
    const view = activeView({ events: await full() });
    expect(view.contents[0]!.parts[0]!.text).toBe(`${SUMMARY_PREFIX}Summary B`);
    expect(invocations(view.events)).toEqual(['inv7']);
    expect(view.checkpoint!.actions.compaction.startSeq).toBe(1);
  });

  it('reads an overlap of several invocations backwards', async () => {
    const { service, invocation } = await setup();
    const summarizer = new RecordingSummarizer('digest', () => text('S'));
    const compactor = new Compactor({
      sessionService: service,
      config: { compactionInterval: 2, overlapSize: 2 },
      summarizer,
    });
    for (let number = 1; number <= 4; number++) {
      await invocation(number);
      await compactor.compact({ ...key, trigger: 'sliding_window' });
    }
    const seen = summarizer.calls[1]!.events.map((event) => event.invocationId);
    expect([...new Set(seen)]).toEqual(['inv1', 'inv2', 'inv3', 'inv4']);
    expect(seen).toHaveLength(16);
  });
});
