import { describe, expect, it } from 'vitest';
import { getText } from '../events/event-helpers.js';
import type { CompactionEvent, Event } from '../events/types.js';
import { HistoryBuilder } from '../testing/event-builders.js';
import { apply, expectPlan, plan, seqs } from './test-helpers/plans.js';
import type { EventsCompactionConfig } from './types.js';
import { activeView, selectCheckpoint } from './view.js';

describe('planCompaction: sliding window', () => {
  const config: EventsCompactionConfig = { compactionInterval: 3, overlapSize: 1 };

  function invocation(history: HistoryBuilder, number: number) {
    history.userText({ invocationId: `inv${number}`, text: `request ${number}` });
    history.functionCalls({ invocationId: `inv${number}`, calls: [`c${number}`] });
    history.functionResponses({ invocationId: `inv${number}`, responses: [`c${number}`] });
    history.modelText({ invocationId: `inv${number}`, text: `reply ${number}` });
  }

  /** What the Compactor reads: the raw events of the last `overlapSize` invocations it covers. */
  function overlapEvents(history: HistoryBuilder, checkpoint: CompactionEvent | undefined) {
    if (!checkpoint) return [];
    const end = checkpoint.actions.compaction.endSeq;
    const last = history.events.find((event) => event.seq === end)!;
    return history.events.filter(
      (event) => event.invocationId === last.invocationId && event.seq <= end,
    );
  }

  function afterInvocation(history: HistoryBuilder) {
    const checkpoint = selectCheckpoint(history.events);
    return plan(history, {
      trigger: 'sliding_window',
      config,
      overlapEvents: overlapEvents(history, checkpoint),
    });
  }

  it('follows the documented timeline: interval 3, overlap 1', () => {
    const history = new HistoryBuilder();
    const invocations = (event: Event) => event.invocationId;
    const expectSkip = (reason: string) =>
      expect(afterInvocation(history)).toEqual(expect.objectContaining({ kind: 'skip', reason }));

    invocation(history, 1);
    expectSkip('interval_not_reached');
    invocation(history, 2);
    expectSkip('interval_not_reached');
    invocation(history, 3);
    const first = expectPlan(afterInvocation(history));
    expect(first.previousSummary).toBeUndefined();
    expect([...new Set(first.events.map(invocations))]).toEqual(['inv1', 'inv2', 'inv3']);
    expect(first.retained).toEqual([]);
    expect(first.startSeq).toBe(1);
    expect(first.endSeq).toBe(12);
    apply(history, first, 'Summary A');

    invocation(history, 4);
    expectSkip('interval_not_reached');
    invocation(history, 5);
    expectSkip('interval_not_reached');
    invocation(history, 6);
    const second = expectPlan(afterInvocation(history));
    expect(getText(second.previousSummary)).toBe('Summary A');
    expect([...new Set(second.events.map(invocations))]).toEqual(['inv3', 'inv4', 'inv5', 'inv6']);
    expect(second.events).toHaveLength(16);
    expect(second.startSeq).toBe(1);
    expect(second.endSeq).toBe(
      history.events.findLast((event) => event.invocationId === 'inv6')!.seq,
    );
    apply(history, second, 'Summary B');

    invocation(history, 7);
    expectSkip('interval_not_reached');
    const view = activeView({ events: history.events });
    expect(view.contents[0]!.parts[0]!.text).toContain('Summary B');
    expect(view.contents[0]!.parts[0]!.text).not.toContain('Summary A');
    expect([...new Set(view.events.map(invocations))]).toEqual(['inv7']);
  });

  it('leaves the running invocation out of the window', () => {
    const history = new HistoryBuilder();
    for (let number = 1; number <= 3; number++) invocation(history, number);
    history.userText({ invocationId: 'inv4', text: 'running' });
    const decision = expectPlan(
      plan(history, { trigger: 'sliding_window', config, currentInvocationId: 'inv4' }),
    );
    expect(decision.endSeq).toBe(12);
    expect(seqs(decision.retained)).toEqual([13]);
  });
});

describe('planCompaction: overflow and manual', () => {
  it('compacts regardless of the threshold and halves the retention on overflow', () => {
    const history = new HistoryBuilder();
    for (let index = 1; index <= 8; index++)
      history.userText({ invocationId: `i${index}`, text: `message ${index}` });
    const config = { tokenThreshold: 1_000_000, eventRetentionSize: 4 };
    const overflow = expectPlan(plan(history, { trigger: 'overflow', config }));
    expect(seqs(overflow.retained)).toEqual([7, 8]);
    const manual = expectPlan(plan(history, { trigger: 'manual', config }));
    expect(seqs(manual.retained)).toEqual([5, 6, 7, 8]);
    const override = expectPlan(
      plan(history, { trigger: 'manual', config, retention: { events: 1 } }),
    );
    expect(seqs(override.retained)).toEqual([8]);
  });
});
