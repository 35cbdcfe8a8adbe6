import { describe, expect, it } from 'vitest';
import { getText } from '../events/event-helpers.js';
import type { Event } from '../events/types.js';
import { HistoryBuilder } from '../testing/event-builders.js';
import { apply, expectPlan, plan, seqs } from './test-helpers/plans.js';
import { estimateEventTokens } from './token-estimate.js';
import {
  countCompletedInvocations,
  currentStepStart,
  estimateNextRequest,
  planCompaction,
  unreadUserMessageIndex,
} from './triggers.js';
import { activeView } from './view.js';

/** Always over the threshold, retention by event count only. */
const tiny = (events: number) => ({
  tokenThreshold: 1,
  eventRetentionSize: events,
  retentionTokenBudget: 1_000_000,
});

describe('estimateNextRequest', () => {
  it('estimates checkpoint + tail + overhead when no usage was reported', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'hello there' });
    history.modelText({ invocationId: 'i1', text: 'general kenobi' });
    const estimate = estimateNextRequest({ tail: history.events, overheadTokens: 100 });
    const expected =
      100 + estimateEventTokens(history.events[0]!) + estimateEventTokens(history.events[1]!);
    expect(estimate).toEqual({ tokens: expected, basis: 'estimate' });
  });

  it('anchors on the latest reported promptTokenCount plus what came after it', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'hello' });
    const answer = history.modelText({ invocationId: 'i1', text: 'answer' });
    answer.usageMetadata = { promptTokenCount: 5000 };
    const next = history.userText({ invocationId: 'i2', text: 'and then?' });
    const estimate = estimateNextRequest({ tail: history.events, overheadTokens: 100 });
    expect(estimate).toEqual({
      tokens: 5000 + estimateEventTokens(answer) + estimateEventTokens(next),
      basis: 'reported_usage',
      usageSeq: answer.seq,
    });
  });

  it("never anchors on a compaction event's usage (ADK's re-trigger trap)", () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'hello' });
    history.modelText({ invocationId: 'i1', text: 'answer' });
    const checkpoint = history.compaction({ startSeq: 1, endSeq: 2, text: 'S' });
    checkpoint.usageMetadata = { promptTokenCount: 900_000 };
    history.userText({ invocationId: 'i2', text: 'more' });
    const view = activeView({ events: history.events });
    const estimate = estimateNextRequest({ checkpoint, tail: history.events });
    expect(estimate.basis).toBe('estimate');
    expect(estimate.tokens).toBeLessThan(100);
    const decision = planCompaction({
      trigger: 'token_threshold',
      config: { tokenThreshold: 1000, eventRetentionSize: 1 },
      checkpoint,
      tail: view.events,
    });
    expect(decision).toEqual(expect.objectContaining({ kind: 'skip', reason: 'below_threshold' }));
  });

  it('ignores stale usage reported before the checkpoint was appended', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'one' }); // 1
    history.modelText({ invocationId: 'i1', text: 'two' }); // 2
    history.userText({ invocationId: 'i2', text: 'three' }); // 3
    const stale = history.modelText({ invocationId: 'i2', text: 'four' }); // 4: its prompt held events 1-3
    stale.usageMetadata = { promptTokenCount: 80_000 };
    const checkpoint = history.compaction({ startSeq: 1, endSeq: 2, text: 'S' }); // 5: appended late
    const view = activeView({ events: history.events });
    const estimate = estimateNextRequest({ checkpoint, tail: view.events });
    expect(estimate.basis).toBe('estimate');
    const fresh = history.modelText({ invocationId: 'i3', text: 'five' });
    fresh.usageMetadata = { promptTokenCount: 300 };
    const after = estimateNextRequest({ checkpoint, tail: [...view.events, fresh] });
    expect(after).toEqual({
      tokens: 300 + estimateEventTokens(fresh),
      basis: 'reported_usage',
      usageSeq: fresh.seq,
    });
  });

  it('counts only this agent and branch', () => {
    const history = new HistoryBuilder();
    const mine = history.modelText({ invocationId: 'i1', text: 'mine' });
    mine.usageMetadata = { promptTokenCount: 1000 };
    const other = history.modelText({
      invocationId: 'i1',
      author: 'helper',
      branch: 'root.helper',
      text: 'theirs',
      usageMetadata: { promptTokenCount: 7 },
    });
    expect(estimateNextRequest({ tail: history.events, agentName: 'agent' }).usageSeq).toBe(
      mine.seq,
    );
    expect(
      estimateNextRequest({ tail: history.events, agentName: 'helper', branch: 'root.helper' })
        .usageSeq,
    ).toBe(other.seq);
    expect(
      estimateNextRequest({ tail: history.events, agentName: 'helper', branch: 'x' }).basis,
    ).toBe('estimate');
  });
});

describe('countCompletedInvocations', () => {
  it('counts distinct invocations, the running one excluded', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' });
    history.modelText({ invocationId: 'i1', text: 'b' });
    history.userText({ invocationId: 'i2', text: 'c' });
    history.userText({ invocationId: 'i3', text: 'd' });
    expect(countCompletedInvocations({ tail: history.events })).toBe(3);
    expect(countCompletedInvocations({ tail: history.events, currentInvocationId: 'i3' })).toBe(2);
  });
});

describe('planCompaction: token threshold', () => {
  function longHistory() {
    const history = new HistoryBuilder();
    for (let index = 1; index <= 5; index++) {
      history.userText({
        invocationId: `i${index}`,
        text: `question number ${index} about the deployment`,
      });
      history.modelText({
        invocationId: `i${index}`,
        text: `answer number ${index} with some detail`,
      });
    }
    return history;
  }

  it('compacts at exactly the threshold (equality compacts) and not one token below', () => {
    const history = longHistory();
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    const config = { tokenThreshold: tokens, eventRetentionSize: 2 };
    const at = expectPlan(plan(history, { trigger: 'token_threshold', config }));
    expect(at.tokensBefore).toBe(tokens);
    expect(seqs(at.retained)).toEqual([9, 10]);
    expect(seqs(at.events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(at).toEqual(
      expect.objectContaining({ startSeq: 1, endSeq: 8, startTimestamp: 1001, endTimestamp: 1008 }),
    );
    expect(at.expectedCheckpointSeq).toBeNull();
    const below = plan(history, {
      trigger: 'token_threshold',
      config: { tokenThreshold: tokens + 1, eventRetentionSize: 2 },
    });
    expect(below).toEqual({ kind: 'skip', reason: 'below_threshold', tokensBefore: tokens });
  });

  it('rolls the summary: startSeq carries over and the previous summary is handed on', () => {
    const history = longHistory();
    const config = tiny(2);
    const first = expectPlan(plan(history, { trigger: 'token_threshold', config }));
    const checkpoint = apply(history, first, 'Summary A');
    history.userText({ invocationId: 'i6', text: 'sixth question' });
    history.modelText({ invocationId: 'i6', text: 'sixth answer' });
    const second = expectPlan(plan(history, { trigger: 'token_threshold', config }));
    expect(second.startSeq).toBe(1);
    expect(second.expectedCheckpointSeq).toBe(checkpoint.seq);
    expect(getText(second.previousSummary)).toBe('Summary A');
    expect(seqs(second.events)).toEqual([9, 10]);
    expect(seqs(second.retained)).toEqual([12, 13]);
    expect(second.startTimestamp).toBe(0); // the checkpoint's own start
  });

  it('keeps no more than the retention token budget', () => {
    const history = longHistory();
    const lastTwo =
      estimateEventTokens(history.events[8]!) + estimateEventTokens(history.events[9]!);
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: { tokenThreshold: 1, eventRetentionSize: 6, retentionTokenBudget: lastTwo },
      }),
    );
    expect(seqs(decision.retained)).toEqual([9, 10]);
  });

  it('defaults the retention budget to a quarter of the threshold', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'x'.repeat(400) }); // ~91 tokens
    history.userText({ invocationId: 'i1', text: 'y'.repeat(40) }); // ~13 tokens
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: { tokenThreshold: 100, eventRetentionSize: 5 },
      }),
    );
    expect(seqs(decision.retained)).toEqual([2]);
  });

  it('moves the split earlier to keep parallel calls with all their responses', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 1
    history.functionCalls({ invocationId: 'i1', calls: ['a', 'b'] }); // 2
    history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 3
    history.functionResponses({ invocationId: 'i1', responses: ['b'] }); // 4
    history.modelText({ invocationId: 'i1', text: 'done' }); // 5
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(2),
      }),
    );
    expect(seqs(decision.events)).toEqual([1]);
    expect(seqs(decision.retained)).toEqual([2, 3, 4, 5]);
  });

  it('keeps a call whose response is in the retained tail', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 1
    history.modelText({ invocationId: 'i1', text: 'let me look' }); // 2
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 3
    history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 4
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(1),
      }),
    );
    expect(seqs(decision.retained)).toEqual([3, 4]);
  });

  it('never summarizes the step in progress: the model reads its tools results itself', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 1
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 2
    history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 3
    history.functionCalls({ invocationId: 'i1', calls: ['b', 'c'] }); // 4
    history.functionResponses({ invocationId: 'i1', responses: ['b'] }); // 5
    history.functionResponses({ invocationId: 'i1', responses: ['c'] }); // 6
    const midStep = expectPlan(
      plan(history, { trigger: 'token_threshold', config: tiny(0), currentInvocationId: 'i1' }),
    );
    expect(seqs(midStep.events)).toEqual([1, 2, 3]);
    expect(seqs(midStep.retained)).toEqual([4, 5, 6]);
    const overflow = expectPlan(
      plan(history, { trigger: 'overflow', config: tiny(0), currentInvocationId: 'i1' }),
    );
    expect(seqs(overflow.retained)).toEqual([4, 5, 6]);

    // Once the model has answered, the step is over and nothing is protected.
    history.modelText({ invocationId: 'i1', text: 'done' }); // 7
    const answered = expectPlan(plan(history, { trigger: 'token_threshold', config: tiny(0) }));
    expect(seqs(answered.events)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(answered.retained).toEqual([]);
    expect(currentStepStart(history.events)).toBe(history.events.length);
  });

  it("never summarizes the user's message before the model has read it", () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'first' }); // 1
    history.modelText({ invocationId: 'i1', text: 'answer' }); // 2
    history.userText({ invocationId: 'i2', text: 'x'.repeat(2_000_000) }); // 3
    for (const trigger of ['token_threshold', 'overflow', 'manual'] as const) {
      const decision = expectPlan(
        plan(history, { trigger, config: tiny(0), currentInvocationId: 'i2' }),
      );
      expect(seqs(decision.events)).toEqual([1, 2]);
      expect(seqs(decision.retained)).toEqual([3]);
    }
    expect(unreadUserMessageIndex(history.events, 'i2')).toBe(2);
    // Without the running invocation (after it), or once the model answered, it is history.
    expect(unreadUserMessageIndex(history.events, undefined)).toBe(-1);
    history.modelText({ invocationId: 'i2', text: 'read it' }); // 4
    expect(unreadUserMessageIndex(history.events, 'i2')).toBe(-1);
    const later = expectPlan(
      plan(history, { trigger: 'token_threshold', config: tiny(0), currentInvocationId: 'i2' }),
    );
    expect(seqs(later.events)).toEqual([1, 2, 3, 4]);
  });

  it('never summarizes a pending tool confirmation', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'delete prod' }); // 1
    history.functionCalls({ invocationId: 'i1', calls: ['x'] }); // 2
    history.functionResponses({
      invocationId: 'i1',
      responses: [{ id: 'x', response: { pending: true } }],
      actions: { requestedToolConfirmations: { x: { hint: 'sure?' } } },
    }); // 3
    for (let index = 2; index < 6; index++)
      history.userText({ invocationId: `i${index}`, text: `chatter ${index}` });
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(0),
      }),
    );
    expect(decision.endSeq).toBe(1);
    expect(seqs(decision.retained)[0]).toBe(2);
  });

  it('does not let a dead call block, and lists it', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 1
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 2: crashed
    history.userText({ invocationId: 'i2', text: 'hello?' }); // 3
    history.modelText({ invocationId: 'i2', text: 'hi' }); // 4
    const decision = expectPlan(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(1),
      }),
    );
    expect(decision.endSeq).toBe(3);
    expect(decision.deadCalls).toEqual([
      { callId: 'a', name: 'tool_a', seq: 2, invocationId: 'i1' },
    ]);
  });

  it('skips with no_safe_split and nothing_to_compact', () => {
    const history = new HistoryBuilder();
    history.functionCalls({ invocationId: 'i1', calls: ['a'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    history.userText({ invocationId: 'i2', text: 'next' });
    expect(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(2),
      }),
    ).toEqual(expect.objectContaining({ kind: 'skip', reason: 'no_safe_split' }));
    expect(
      plan(history, {
        trigger: 'token_threshold',
        config: tiny(5),
      }),
    ).toEqual(expect.objectContaining({ kind: 'skip', reason: 'nothing_to_compact' }));
  });

  it('is disabled without a threshold', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' });
    expect(
      plan(history, { trigger: 'token_threshold', config: { compactionInterval: 3 } }),
    ).toEqual(expect.objectContaining({ kind: 'skip', reason: 'disabled' }));
    expect(plan(history, { trigger: 'sliding_window', config: { tokenThreshold: 3 } })).toEqual(
      expect.objectContaining({ kind: 'skip', reason: 'disabled' }),
    );
  });

  it('backs off after an ineffective compaction until 10% of the threshold arrives', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' }); // 1
    const checkpoint = history.compaction({ startSeq: 1, endSeq: 1, text: 'S' });
    checkpoint.actions.compaction.tokensAfter = 1200;
    const tail = history.userText({ invocationId: 'i2', text: 'b' });
    const config = { tokenThreshold: 1000, eventRetentionSize: 0 };
    const withUsage = (prompt: number) => {
      const answer: Event = {
        ...tail,
        id: 'answer',
        seq: tail.seq + 1,
        author: 'agent',
        content: { role: 'model', parts: [{ text: '' }] },
        usageMetadata: { promptTokenCount: prompt },
      };
      const answerTokens = estimateEventTokens(answer);
      return planCompaction({
        trigger: 'token_threshold',
        config,
        checkpoint,
        tail: [tail, { ...answer, usageMetadata: { promptTokenCount: prompt - answerTokens } }],
      });
    };
    expect(withUsage(1250)).toEqual({
      kind: 'skip',
      reason: 'ineffective_backoff',
      tokensBefore: 1250,
    });
    expect(withUsage(1299)).toEqual(expect.objectContaining({ reason: 'ineffective_backoff' }));
    expect(withUsage(1300).kind).toBe('compact');
    // An effective previous compaction does not back off.
    checkpoint.actions.compaction.tokensAfter = 999;
    expect(withUsage(1000).kind).toBe('compact');
  });
});
