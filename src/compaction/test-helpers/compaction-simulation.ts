/**
 * The property tests' simulation (`src/compaction/property.test.ts`): a store and a generator of
 * random histories (text, parallel calls, responses, confirmations, dead calls) compacted by
 * running `planCompaction` and appending its compaction, sometimes late, and elided by running
 * `planTieredCompaction` and appending its rule; `checkRun` asserts every invariant after each
 * operation.
 */
import { expect } from 'vitest';
import type { CompactionEvent, Content, Event, NewEvent, Part } from '../../events/types.js';
import { ELIDED_RESPONSE_KEY, latestElision } from '../elision.js';
import { estimateEventTokens } from '../token-estimate.js';
import {
  currentStepStart,
  estimateNextRequest,
  planCompaction,
  planTieredCompaction,
} from '../triggers.js';
import type { CompactionPlan, EventsCompactionConfig } from '../types.js';
import { activeView, SUMMARY_PREFIX, selectCheckpoint } from '../view.js';

export type Operation =
  | { type: 'user'; size: number }
  | { type: 'text'; size: number }
  | { type: 'calls'; count: number }
  | { type: 'respond'; count: number; size: number }
  | { type: 'confirm' }
  | { type: 'answer' }
  | { type: 'abandon' }
  | { type: 'elide'; minOutputBytes: number; retentionEvents: number }
  | {
      type: 'compact';
      trigger: 'token_threshold' | 'manual' | 'sliding_window';
      retentionEvents: number;
      budget: number;
      late: number;
    };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** The store and the generator's own bookkeeping. */
class Simulation {
  readonly events: Event[] = [];
  readonly snapshots: Event[] = [];
  readonly summarizedSeqs = new Set<number>();
  readonly plans: Array<{
    plan: CompactionPlan;
    retentionEvents: number;
    budget: number;
    pendingConfirmationSeqs: number[];
  }> = [];
  invocation = 0;
  private callCounter = 0;
  /** Calls of the current invocation waiting for a response. */
  openCalls: Array<{ id: string; name: string }> = [];
  /** Confirmations requested and not answered yet: call id -> seq of the request. */
  pendingConfirmations = new Map<string, number>();

  append(event: Omit<NewEvent, 'id' | 'timestamp' | 'invocationId'> & { invocationId?: string }) {
    const seq = this.events.length + 1;
    const stored: Event = {
      id: `e${seq}`,
      timestamp: 1000 + Math.floor(seq / 3), // equal timestamps on purpose: ranges are by seq
      invocationId: `inv${this.invocation}`,
      seq,
      ...event,
    };
    this.snapshots.push(structuredClone(stored));
    this.events.push(deepFreeze(stored));
    return stored;
  }

  content(role: Content['role'], parts: Part[]) {
    return { role, parts };
  }

  apply(op: Operation, config: EventsCompactionConfig) {
    switch (op.type) {
      case 'user':
        this.invocation++;
        // Unanswered calls of the previous invocation are dead now (a crashed tool).
        this.openCalls = [];
        this.append({
          author: 'user',
          actions: {},
          content: this.content('user', [{ text: 'u'.repeat(op.size) }]),
        });
        return;
      case 'text':
        if (this.openCalls.length > 0 || this.invocation === 0) return;
        this.append({
          author: 'agent',
          actions: {},
          content: this.content('model', [{ text: 'm'.repeat(op.size) }]),
        });
        return;
      case 'calls': {
        if (this.openCalls.length > 0 || this.invocation === 0) return;
        const parts: Part[] = [];
        for (let index = 0; index < op.count; index++) {
          const id = `call${++this.callCounter}`;
          this.openCalls.push({ id, name: 'tool' });
          parts.push({ functionCall: { id, name: 'tool', args: { index } } });
        }
        this.append({ author: 'agent', actions: {}, content: this.content('model', parts) });
        return;
      }
      case 'respond': {
        const answered = this.openCalls.splice(0, op.count);
        if (answered.length === 0) return;
        this.append({
          author: 'agent',
          actions: {},
          content: this.content(
            'user',
            answered.map((call) => ({
              functionResponse: {
                id: call.id,
                name: call.name,
                response: { output: 'r'.repeat(op.size) },
              },
            })),
          ),
        });
        return;
      }
      case 'confirm': {
        // The tool answers "needs confirmation" and the invocation pauses.
        const call = this.openCalls.shift();
        if (!call) return;
        const event = this.append({
          author: 'agent',
          actions: { requestedToolConfirmations: { [call.id]: { hint: 'sure?' } } },
          content: this.content('user', [
            { functionResponse: { id: call.id, name: call.name, response: { pending: true } } },
          ]),
        });
        this.pendingConfirmations.set(call.id, event.seq);
        return;
      }
      case 'answer': {
        const [first] = this.pendingConfirmations.keys();
        if (first === undefined) return;
        this.pendingConfirmations.delete(first);
        this.invocation++;
        this.openCalls = [];
        this.append({
          author: 'user',
          actions: {},
          content: this.content('user', [
            { functionResponse: { id: first, name: 'tool', response: { confirmed: true } } },
          ]),
        });
        return;
      }
      case 'abandon':
        // The tool crashed: the invocation ends with its calls unanswered; the user comes back.
        if (this.openCalls.length === 0) return;
        this.openCalls = [];
        this.invocation++;
        this.append({
          author: 'user',
          actions: {},
          content: this.content('user', [{ text: 'retry' }]),
        });
        return;
      case 'compact':
        this.compact(op, config);
        return;
      case 'elide':
        this.elide(op);
        return;
    }
  }

  /** The elision tier at exactly the threshold: any reclaim is enough. */
  elide(op: Extract<Operation, { type: 'elide' }>) {
    const view = activeView({ events: this.events });
    const rawTail = this.events.filter(
      (event) => event.seq > (view.checkpoint?.actions.compaction.endSeq ?? 0),
    );
    const tokens = estimateNextRequest({ checkpoint: view.checkpoint, tail: rawTail }).tokens;
    if (tokens < 2) return;
    const decision = planTieredCompaction({
      trigger: 'token_threshold',
      config: {
        tokenThreshold: tokens,
        eventRetentionSize: op.retentionEvents,
        retentionTokenBudget: 1_000_000,
        elision: { minOutputBytes: op.minOutputBytes, minReclaimTokens: 1 },
      },
      checkpoint: view.checkpoint,
      tail: rawTail,
      currentInvocationId: this.openCalls.length > 0 ? `inv${this.invocation}` : undefined,
    });
    if (decision.kind !== 'elide') return;
    // The step in progress is never elided.
    const stepStart = currentStepStart(view.events.filter((event) => !event.actions.elision));
    const stepSeq = view.events.filter((event) => !event.actions.elision)[stepStart]?.seq;
    if (stepSeq !== undefined) expect(decision.throughSeq).toBeLessThan(stepSeq);
    expect(decision.tokensAfter).toBeLessThan(tokens);
    this.append({
      author: 'user',
      invocationId: `elision${this.events.length + 1}`,
      actions: {
        elision: {
          throughSeq: decision.throughSeq,
          minOutputBytes: decision.minOutputBytes,
          trigger: 'token_threshold',
          tokensBefore: decision.tokensBefore,
          tokensAfter: decision.tokensAfter,
        },
      },
    });
  }

  compact(op: Extract<Operation, { type: 'compact' }>, config: EventsCompactionConfig) {
    const view = activeView({ events: this.events });
    const checkpoint = view.checkpoint;
    const running = this.openCalls.length > 0 ? `inv${this.invocation}` : undefined;
    const decision = planCompaction({
      trigger: op.trigger,
      config: {
        ...config,
        eventRetentionSize: op.retentionEvents,
        retentionTokenBudget: op.budget,
      },
      checkpoint,
      // As stores load it: stored events (the view's are elided copies) after the checkpoint.
      tail: this.events.filter(
        (event) =>
          event.seq > (checkpoint?.actions.compaction.endSeq ?? 0) && !event.actions.compaction,
      ),
      overlapEvents: checkpoint ? this.overlap(checkpoint, config.overlapSize ?? 0) : undefined,
      currentInvocationId: running,
      force: op.trigger !== 'sliding_window',
    });
    // The step in progress (calls whose responses the model has not read) is never summarized.
    const stepStart = currentStepStart(view.events);
    if (decision.kind === 'compact' && op.trigger !== 'sliding_window') {
      const retainedSeqs = new Set(decision.retained.map((event) => event.seq));
      for (const event of view.events.slice(stepStart)) {
        if (event.actions.elision) continue; // a view rule, not conversation
        expect(retainedSeqs.has(event.seq)).toBe(true);
      }
    }
    // Nothing open (dead calls aside), no step in progress and nothing to keep: the whole tail
    // must be summarized.
    const idle = this.openCalls.length === 0 && this.pendingConfirmations.size === 0;
    if (
      idle &&
      stepStart === view.events.length &&
      op.trigger !== 'sliding_window' &&
      op.retentionEvents === 0 &&
      view.events.length > 0
    ) {
      expect(decision).toEqual(expect.objectContaining({ kind: 'compact', retained: [] }));
    }
    if (decision.kind === 'skip') return;
    this.plans.push({
      plan: decision,
      retentionEvents: op.retentionEvents,
      budget: op.budget,
      pendingConfirmationSeqs: [...this.pendingConfirmations.values()],
    });
    for (const event of decision.events) this.summarizedSeqs.add(event.seq);
    // A late append: the compaction lands after newer events (they must stay visible).
    for (
      let index = 0;
      index < op.late && this.openCalls.length === 0 && this.invocation > 0;
      index++
    ) {
      this.apply({ type: 'text', size: 10 }, config);
    }
    this.append({
      author: 'user',
      invocationId: `compaction${this.events.length + 1}`,
      actions: {
        compaction: {
          startSeq: decision.startSeq,
          endSeq: decision.endSeq,
          startTimestamp: decision.startTimestamp,
          endTimestamp: decision.endTimestamp,
          compactedContent: {
            role: 'model',
            parts: [{ text: `summary through ${decision.endSeq}` }],
          },
          trigger: decision.trigger,
          tokensBefore: decision.tokensBefore,
          tokensAfter: 0,
          summarizer: 'property',
        },
      },
    });
  }

  overlap(checkpoint: CompactionEvent, size: number): Event[] {
    const collected: Event[] = [];
    const invocations = new Set<string>();
    for (let index = checkpoint.actions.compaction.endSeq - 1; index >= 0; index--) {
      const event = this.events[index]!;
      if (event.actions.compaction) continue;
      if (!invocations.has(event.invocationId)) {
        if (invocations.size === size) break;
        invocations.add(event.invocationId);
      }
      collected.push(event);
    }
    return collected.reverse();
  }
}

function fitCount(tail: Event[], events: number, budget: number): number {
  let kept = 0;
  let tokens = 0;
  for (let index = tail.length - 1; index >= 0 && kept < events; index--) {
    tokens += estimateEventTokens(tail[index]!);
    if (tokens > budget) break;
    kept++;
  }
  return kept;
}

function checkView(simulation: Simulation) {
  const responded = new Set<string>();
  for (const event of simulation.events) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionResponse) responded.add(part.functionResponse.id);
    }
  }
  for (const allowPendingCalls of [true, false]) {
    const view = activeView({ events: simulation.events, allowPendingCalls });
    // Compaction never creates an orphan: nothing had to be dropped.
    expect(view.warnings.filter((warning) => warning.kind === 'orphan_response_dropped')).toEqual(
      [],
    );
    // Only calls that never got any response (dead or still running) are answered in the view.
    for (const warning of view.warnings) expect(responded.has(warning.callId!)).toBe(false);
    const { contents } = view;
    if (contents.length > 0) expect(contents[0]!.role).toBe('user');
    for (let index = 1; index < contents.length; index++) {
      expect(contents[index]!.role).not.toBe(contents[index - 1]!.role);
    }
    const parts = contents.flatMap((content) => content.parts);
    const summaries = parts.filter((part) => part.text?.startsWith(SUMMARY_PREFIX));
    expect(summaries.length).toBeLessThanOrEqual(1);
    if (summaries.length === 1) expect(contents[0]!.parts[0]).toBe(summaries[0]);
    const calls = new Set<string>();
    const answered = new Set<string>();
    for (const part of parts) {
      if (part.functionCall) calls.add(part.functionCall.id);
      if (part.functionResponse) {
        expect(calls.has(part.functionResponse.id)).toBe(true);
        answered.add(part.functionResponse.id);
      }
    }
    if (!allowPendingCalls) for (const id of calls) expect(answered.has(id)).toBe(true);
    // Nothing leaves the view unless a summary covers it; an elided output is a placeholder
    // naming its seq, and only when the rule says so.
    const endSeq = view.checkpoint?.actions.compaction.endSeq ?? 0;
    const rule = latestElision(simulation.events.filter((event) => event.seq > endSeq));
    const shown = new Map(view.events.map((event) => [event.seq, event]));
    for (const event of simulation.events) {
      if (event.actions.compaction || event.actions.elision) continue;
      if (event.seq <= endSeq) {
        expect(simulation.summarizedSeqs.has(event.seq)).toBe(true);
        continue;
      }
      const seen = shown.get(event.seq);
      expect(seen).toBeDefined();
      event.content?.parts.forEach((part, index) => {
        const shownPart = seen!.content!.parts[index]!;
        const elided = shownPart.functionResponse?.response[ELIDED_RESPONSE_KEY];
        if (elided === undefined) {
          expect(shownPart).toBe(part);
          return;
        }
        const rules = rule?.actions.elision;
        expect(rules && event.seq <= rules.throughSeq).toBe(true);
        expect(JSON.stringify(part.functionResponse!.response).length).toBeGreaterThan(
          rules!.minOutputBytes,
        );
        expect(String(elided)).toContain(`seq ${event.seq};`);
        expect(shownPart.functionResponse!.id).toBe(part.functionResponse!.id);
      });
    }
  }
}

/** Every invariant, over `operations` applied one at a time under `config`. */
export function checkRun(operations: Operation[], config: EventsCompactionConfig): void {
  const simulation = new Simulation();
  for (const op of operations) {
    simulation.apply(op, config);
    checkView(simulation);
  }
  // Lossless: every stored event, compactions included, is exactly what was appended.
  expect(simulation.events).toEqual(simulation.snapshots);
  expect(simulation.events.map((event) => event.seq)).toEqual(
    simulation.events.map((_event, index) => index + 1),
  );
  expect(selectCheckpoint(simulation.events)?.actions.compaction.endSeq ?? 0).toBeLessThanOrEqual(
    simulation.events.length,
  );
  for (const { plan, retentionEvents, budget, pendingConfirmationSeqs } of simulation.plans) {
    const tail = [
      ...plan.events.filter((event) => !plan.previousSummary || event.seq > 0),
      ...plan.retained,
    ];
    if (plan.trigger !== 'sliding_window') {
      const asked = fitCount(tail, retentionEvents, budget);
      expect(plan.retained.length).toBeGreaterThanOrEqual(asked);
    }
    // A pending confirmation is never summarized.
    for (const seq of pendingConfirmationSeqs) expect(seq).toBeGreaterThan(plan.endSeq);
    expect(plan.events.at(-1)?.seq).toBe(plan.endSeq);
  }
}
