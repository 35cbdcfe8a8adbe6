import { describe, expect, it } from 'vitest';
import type { Content, EventElision } from '../events/types.js';
import { HistoryBuilder } from '../testing/event-builders.js';
import {
  ELISION_PLACEHOLDER_PREFIX,
  elideEvent,
  elisionPlaceholder,
  isValidElision,
  latestElision,
  responseBytes,
} from './elision.js';
import { estimateEventTokens } from './token-estimate.js';
import { estimateNextRequest, planCompaction, planTieredCompaction } from './triggers.js';
import type { EventsCompactionConfig, TieredCompactionDecision } from './types.js';
import { activeView, assembleView, selectCheckpoint } from './view.js';

const big = (label: string) => ({ content: `${label}: ${'x'.repeat(3000)}` });

/** One tool step: a call and its response (`output`), in invocation `invocationId`. */
function toolStep(
  history: HistoryBuilder,
  options: { id: string; output: Record<string, unknown>; invocationId?: string },
) {
  const invocationId = options.invocationId ?? 'i1';
  const call = history.functionCalls({
    invocationId,
    author: 'agent',
    calls: [{ id: options.id, name: 'read_file', args: { path: options.id } }],
  });
  const response = history.functionResponses({
    invocationId,
    author: 'agent',
    responses: [{ id: options.id, name: 'read_file', response: options.output }],
  });
  return { call, response };
}

function rule(history: HistoryBuilder, elision: Partial<EventElision> & { throughSeq: number }) {
  return history.append({
    invocationId: `elision-${history.nextSeq}`,
    author: 'user',
    actions: {
      elision: {
        minOutputBytes: 2000,
        trigger: 'token_threshold',
        tokensBefore: 0,
        tokensAfter: 0,
        ...elision,
      },
    },
  });
}

function responsePayloads(view: { contents: Content[] }) {
  return view.contents.flatMap((content) =>
    content.parts.flatMap((part) =>
      part.functionResponse ? [[part.functionResponse.id, part.functionResponse.response]] : [],
    ),
  );
}

/** A history of three big tool outputs and one small one, then a user question. */
function toolHistory() {
  const history = new HistoryBuilder();
  history.userText({ invocationId: 'i1', text: 'read the files' });
  const a = toolStep(history, { id: 'a', output: big('a') });
  const small = toolStep(history, { id: 's', output: { content: 'tiny' } });
  const b = toolStep(history, { id: 'b', output: big('b') });
  const c = toolStep(history, { id: 'c', output: big('c') });
  history.modelText({ invocationId: 'i1', author: 'agent', text: 'done' });
  return { history, a, small, b, c };
}

describe('the elision view rule', () => {
  it('replaces big outputs up to throughSeq by a placeholder; calls, small outputs and the rest stay', () => {
    const { history, a, small, b, c } = toolHistory();
    const stored = structuredClone(history.events);
    rule(history, { throughSeq: b.response.seq });
    const view = activeView({ events: history.events });
    const payloads = new Map(responsePayloads(view) as Array<[string, Record<string, unknown>]>);
    const bytes = responseBytes(big('a'));
    expect(payloads.get('a')).toEqual({
      elided: `[tool output elided: read_file, ${bytes} bytes, seq ${a.response.seq}; recall({ fromSeq: ${a.response.seq}, toSeq: ${a.response.seq} }) reads it]`,
    });
    expect(String(payloads.get('b')?.elided)).toContain(`seq ${b.response.seq};`);
    expect(payloads.get('s')).toEqual({ content: 'tiny' });
    expect(payloads.get('c')).toEqual(big('c'));
    expect(small.response.seq).toBeLessThan(b.response.seq);
    // Pairing holds: every call still has its response, in order, nothing dropped or synthesized.
    expect(view.warnings).toEqual([]);
    const calls = view.contents.flatMap((content) =>
      content.parts.flatMap((part) => (part.functionCall ? [part.functionCall.id] : [])),
    );
    expect(calls).toEqual(['a', 's', 'b', 'c']);
    expect([...payloads.keys()]).toEqual(['a', 's', 'b', 'c']);
    expect(view.elision?.throughSeq).toBe(b.response.seq);
    // The stored events are untouched.
    expect(history.events.slice(0, stored.length)).toEqual(stored);
    expect(c.call.seq).toBeGreaterThan(b.response.seq);
  });

  it('is reproducible from the log: the same events give the same view, in any order', () => {
    const { history, b } = toolHistory();
    rule(history, { throughSeq: b.response.seq });
    const first = activeView({ events: history.events });
    const again = activeView({ events: structuredClone(history.events).reverse() });
    expect(again).toEqual(first);
    const fromStore = assembleView({ tail: structuredClone(history.events) });
    expect(fromStore.contents).toEqual(first.contents);
  });

  it('applies the newest valid rule only; an impossible one is ignored', () => {
    const { history, a, b } = toolHistory();
    rule(history, { throughSeq: b.response.seq });
    const narrower = rule(history, { throughSeq: a.response.seq });
    const impossible = rule(history, { throughSeq: 999 });
    expect(isValidElision(narrower)).toBe(true);
    expect(isValidElision(impossible)).toBe(false);
    expect(latestElision(history.events)).toBe(narrower);
    const payloads = new Map(
      responsePayloads(activeView({ events: history.events })) as Array<
        [string, Record<string, unknown>]
      >,
    );
    expect(payloads.get('a')?.elided).toBeDefined();
    expect(payloads.get('b')).toEqual(big('b'));
  });

  it('leaves an event alone (same object) when nothing in it is elided', () => {
    const { history, small, c } = toolHistory();
    const elision = rule(history, { throughSeq: small.response.seq }).actions.elision!;
    expect(elideEvent(small.response, elision)).toBe(small.response);
    expect(elideEvent(c.response, elision)).toBe(c.response);
    expect(elideEvent(c.response, undefined)).toBe(c.response);
  });

  it('is safe with summaries: a later checkpoint hides what it covers, the rule keeps the rest', () => {
    const { history, a, b, c } = toolHistory();
    const elision = rule(history, { throughSeq: c.response.seq });
    // A summary written before the rule, covering up to a: b and c are still elided after it.
    const early = history.compaction({ startSeq: 1, endSeq: a.response.seq });
    let view = activeView({ events: history.events });
    expect(view.checkpoint).toBe(early);
    let payloads = new Map(responsePayloads(view) as Array<[string, Record<string, unknown>]>);
    expect([...payloads.keys()]).toEqual(['s', 'b', 'c']);
    expect(payloads.get('b')?.elided).toBeDefined();
    expect(payloads.get('c')?.elided).toBeDefined();
    // A summary past the rule's own seq: the rule left the tail with what it covered.
    history.compaction({ startSeq: 1, endSeq: elision.seq });
    view = activeView({ events: history.events });
    payloads = new Map(responsePayloads(view) as Array<[string, Record<string, unknown>]>);
    expect(payloads.size).toBe(0);
    expect(view.elision).toBeUndefined();
    expect(b.response.seq).toBeLessThan(elision.seq);
  });

  it('says how to recall in a short placeholder', () => {
    const text = elisionPlaceholder({ toolName: 'shell', bytes: 48_213, seq: 42 });
    expect(text.startsWith(ELISION_PLACEHOLDER_PREFIX)).toBe(true);
    expect(text).toContain('recall({ fromSeq: 42, toSeq: 42 })');
    expect(text.length).toBeLessThan(120);
  });
});

describe('the estimate under an elision rule', () => {
  it('counts placeholders, and never anchors on usage reported before the rule', () => {
    const { history, b } = toolHistory();
    const answer = history.events.at(-1)!;
    answer.usageMetadata = { promptTokenCount: 50_000 };
    const before = estimateNextRequest({ tail: history.events });
    expect(before).toMatchObject({
      basis: 'reported_usage',
      tokens: 50_000 + estimateEventTokens(answer),
    });
    rule(history, { throughSeq: b.response.seq });
    const after = estimateNextRequest({ tail: history.events });
    expect(after.basis).toBe('estimate');
    const view = activeView({ events: history.events });
    const shown = view.events.reduce((sum, event) => sum + estimateEventTokens(event), 0);
    expect(after.tokens).toBe(shown);
    const raw = history.events.reduce((sum, event) => sum + estimateEventTokens(event), 0);
    expect(after.tokens).toBeLessThan(raw - 1000);
  });

  it('does not count a rule event as an invocation of the sliding window', () => {
    const { history, b } = toolHistory();
    rule(history, { throughSeq: b.response.seq });
    const decision = planCompaction({
      config: { compactionInterval: 2, overlapSize: 0 },
      trigger: 'sliding_window',
      tail: history.events,
    });
    expect(decision).toMatchObject({ kind: 'skip', reason: 'interval_not_reached' });
  });
});

describe('the elision tier (planTieredCompaction)', () => {
  const config = (threshold: number, minReclaimTokens: number): EventsCompactionConfig => ({
    tokenThreshold: threshold,
    eventRetentionSize: 1,
    retentionTokenBudget: 1_000_000,
    elision: { minReclaimTokens },
  });

  function decide(history: HistoryBuilder, options: { config: EventsCompactionConfig }) {
    const checkpoint = selectCheckpoint(history.events);
    const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
    const tail = history.events.filter((event) => event.seq > endSeq && !event.actions.compaction);
    return planTieredCompaction({ ...options, checkpoint, tail, trigger: 'token_threshold' });
  }

  /** Appends the elision a decision describes, as the Compactor would. */
  function applyDecision(history: HistoryBuilder, decision: TieredCompactionDecision) {
    if (decision.kind !== 'elide') throw new Error(`expected an elision, got ${decision.kind}`);
    return rule(history, {
      throughSeq: decision.throughSeq,
      minOutputBytes: decision.minOutputBytes,
      tokensBefore: decision.tokensBefore,
      tokensAfter: decision.tokensAfter,
    });
  }

  it('elides up to the retained tail when that brings the request under threshold - minReclaim', () => {
    const { history, c } = toolHistory();
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    const decision = decide(history, { config: config(tokens - 10, 100) });
    expect(decision).toMatchObject({
      kind: 'elide',
      trigger: 'token_threshold',
      // One event retained (the answer): up to c's response.
      throughSeq: c.response.seq,
      minOutputBytes: 2000,
      newlyElided: 3,
      tokensBefore: tokens,
    });
    if (decision.kind !== 'elide') return;
    const elision = applyDecision(history, decision);
    expect(estimateNextRequest({ tail: history.events }).tokens).toBe(decision.tokensAfter);
    expect(elision.actions.elision?.throughSeq).toBe(c.response.seq);
    // planCompaction, the summary's decision, never elides.
    expect(
      planCompaction({ config: config(tokens - 10, 100), trigger: 'token_threshold', tail: [] }),
    ).toMatchObject({ kind: 'skip' });
  });

  it('summarizes when eliding would not leave minReclaimTokens of room', () => {
    const { history } = toolHistory();
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    // Even eliding everything leaves more than threshold - minReclaim.
    expect(decide(history, { config: config(tokens - 10, tokens - 20) })).toMatchObject({
      kind: 'compact',
    });
    // Off: the same history is summarized.
    const off = { ...config(tokens - 10, 100), elision: undefined };
    expect(decide(history, { config: off })).toMatchObject({ kind: 'compact' });
  });

  it('moves in steps: not again until minReclaimTokens of new conversation, never backwards', () => {
    const { history } = toolHistory();
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    const settings = config(tokens - 10, 500);
    const first = decide(history, { config: settings });
    applyDecision(history, first);
    if (first.kind !== 'elide') return;
    // Small turns: below the threshold, nothing moves.
    let turns = 0;
    for (;;) {
      history.userText({ invocationId: `t${turns}`, text: 'a short question about the files' });
      history.modelText({ invocationId: `t${turns}`, author: 'agent', text: 'a short answer' });
      turns++;
      const decision = decide(history, { config: settings });
      if (decision.kind !== 'skip') break;
      expect(decision.reason).toBe('below_threshold');
    }
    const grown = estimateNextRequest({ tail: history.events }).tokens - first.tokensAfter;
    expect(grown).toBeGreaterThanOrEqual(500);
    // Next time over: nothing big left to elide, so a summary (the rule never moves back).
    expect(decide(history, { config: settings })).toMatchObject({ kind: 'compact' });
  });

  it('backs off after an ineffective summary only until a later rule re-measures the view', () => {
    const { history, b } = toolHistory();
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    const settings = config(tokens - 10, 100);
    // An ineffective summary of the first message: the view stayed over the threshold.
    history.compaction({ startSeq: 1, endSeq: 1, tokensAfter: tokens + 5 });
    expect(decide(history, { config: settings })).toMatchObject({
      kind: 'skip',
      reason: 'ineffective_backoff',
    });
    // A rule written after it measured the view under the threshold: no backoff from it.
    rule(history, { throughSeq: b.response.seq, tokensAfter: 10 });
    // Back just over the threshold, well under the backoff's `tokensAfter + 10%`.
    const summary = selectCheckpoint(history.events);
    const estimate = () =>
      estimateNextRequest({
        checkpoint: summary,
        tail: history.events.filter((event) => event.seq > 1 && !event.actions.compaction),
      }).tokens;
    while (estimate() < tokens - 10) {
      history.modelText({ invocationId: 'i2', author: 'agent', text: 'more words '.repeat(20) });
    }
    expect(decide(history, { config: settings }).kind).not.toBe('skip');
  });

  it('leaves the step in progress and forced triggers to the summary', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    toolStep(history, { id: 'a', output: big('a') });
    const tokens = estimateNextRequest({ tail: history.events }).tokens;
    // The only big output is the step in progress: never elided; the summary takes the rest.
    expect(
      decide(history, { config: { ...config(tokens - 10, 10), eventRetentionSize: 0 } }),
    ).toMatchObject({ kind: 'compact', endSeq: 1 });
    const { history: full } = toolHistory();
    const forced = planTieredCompaction({
      config: config(1, 1),
      trigger: 'manual',
      tail: full.events,
    });
    expect(forced.kind).toBe('compact');
  });
});
