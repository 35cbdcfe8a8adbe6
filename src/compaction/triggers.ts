/**
 * When to compact and what (docs/architecture.md#when-compaction-runs): the next request's
 * estimate, the sliding window's invocation count and the pure plan the Compactor executes. No I/O.
 */
import type { CompactionEvent, Event, EventElision } from '../events/types.js';
import { COMPACTION_DEFAULTS } from './config.js';
import {
  type ElisionEvent,
  elideEvent,
  isElisionEvent,
  latestElision,
  planElision,
} from './elision.js';
import { findSafeSplit } from './safe-split.js';
import { estimateEventTokens } from './token-estimate.js';
import type {
  CompactionDecision,
  CompactionRequest,
  CompactionSkip,
  DeadCall,
  ElisionPlan,
  EventsCompactionConfig,
  RetentionOverride,
  TieredCompactionDecision,
} from './types.js';

/** Anti-thrash: after an ineffective compaction, wait for this share of the threshold in new tokens. */
export const INEFFECTIVE_BACKOFF_RATIO = 0.1;

export interface RequestEstimate {
  tokens: number;
  /** `reported_usage`: anchored on a model-reported `promptTokenCount`; else a full estimate. */
  basis: 'reported_usage' | 'estimate';
  /** `seq` of the event whose usage anchored the estimate. */
  usageSeq?: number;
}

export interface EstimateNextRequestOptions {
  checkpoint?: CompactionEvent;
  tail: Event[];
  /** Only usage reported on this agent's (and branch's) model events counts. */
  agentName?: string;
  branch?: string;
  /** System instruction + tool declarations, estimated by the caller. */
  overheadTokens?: number;
  /** How an event is estimated: default `estimateEventTokens` (e.g. a `SessionEventTokens` cache). */
  estimateEvent?: (event: Event) => number;
  /**
   * `latestElision(tail)` when the caller keeps it (`TailFacts`; `null`: no rule), so the tail
   * is not scanned for it again.
   */
  latestElision?: ElisionEvent | null;
}

/** Index of the tail event whose reported usage anchors the estimate, or -1. */
function findUsageAnchor(options: EstimateNextRequestOptions): number {
  const { tail, checkpoint, agentName, branch } = options;
  const afterSeq = checkpoint?.seq ?? Number.NEGATIVE_INFINITY;
  for (let index = tail.length - 1; index >= 0; index--) {
    const event = tail[index]!;
    // Usage older than the checkpoint counts a request that still held the summarized events;
    // usage older than an elision rule, one that still held the elided outputs.
    if (event.seq <= afterSeq || isElisionEvent(event)) break;
    if (event.actions?.compaction) continue; // the summarizer's own usage (ADK's re-trigger trap)
    if (event.content?.role !== 'model' || event.author === 'user') continue;
    if (agentName !== undefined && event.author !== agentName) continue;
    if (branch !== undefined && event.branch !== branch) continue;
    const prompt = event.usageMetadata?.promptTokenCount;
    if (typeof prompt === 'number' && Number.isFinite(prompt) && prompt > 0) return index;
  }
  return -1;
}

/**
 * How an event counts in the next request: as the view shows it under the elision rule in
 * force (an elided copy is estimated afresh; a stored event may come from a cache).
 */
function viewEstimator(
  tail: Event[],
  estimateStored: (event: Event) => number,
  known: ElisionEvent | null | undefined,
): (event: Event) => number {
  const latest = known === undefined ? latestElision(tail) : (known ?? undefined);
  const rule: EventElision | undefined = latest?.actions.elision;
  if (!rule) return estimateStored;
  return (event) => {
    const shown = elideEvent(event, rule);
    return shown === event ? estimateStored(event) : estimateEventTokens(shown);
  };
}

/**
 * The next request's size: the latest `promptTokenCount` reported after the checkpoint (and
 * after the elision rule in force) by this agent and branch (never a compaction event's), plus
 * estimates of everything after it as the view shows it.
 */
export function estimateNextRequest(options: EstimateNextRequestOptions): RequestEstimate {
  const { tail, checkpoint } = options;
  const estimateEvent = viewEstimator(
    tail,
    options.estimateEvent ?? estimateEventTokens,
    options.latestElision,
  );
  const anchor = findUsageAnchor(options);
  if (anchor >= 0) {
    const event = tail[anchor]!;
    // The anchor's own content (the model's answer) was not in the prompt it reports.
    let tokens = event.usageMetadata!.promptTokenCount!;
    for (let index = anchor; index < tail.length; index++) {
      const later = tail[index]!;
      if (!later.actions?.compaction) tokens += estimateEvent(later);
    }
    return { tokens, basis: 'reported_usage', usageSeq: event.seq };
  }
  let tokens = options.overheadTokens ?? 0;
  if (checkpoint) tokens += estimateEvent(checkpoint);
  for (const event of tail) {
    if (!event.actions?.compaction) tokens += estimateEvent(event);
  }
  return { tokens, basis: 'estimate' };
}

/** Completed invocations in the tail (the running one excluded). */
export function countCompletedInvocations(options: {
  tail: Event[];
  currentInvocationId?: string;
}): number {
  const seen = new Set<string>();
  for (const event of options.tail) {
    if (event.actions?.compaction || isElisionEvent(event)) continue;
    if (event.invocationId === options.currentInvocationId) continue;
    seen.add(event.invocationId);
  }
  return seen.size;
}

export interface PlanCompactionOptions extends CompactionRequest {
  config: EventsCompactionConfig;
  checkpoint?: CompactionEvent;
  tail: Event[];
  /**
   * Sliding window: raw events before the checkpoint's end that belong to the `overlapSize`
   * invocations to re-read (the Compactor reads them from storage). Ignored otherwise.
   */
  overlapEvents?: Event[];
}

/** How many tail events to keep: the last `events`, but no more than `tokens` of them. */
export function retainedCount(options: { tail: Event[]; events: number; tokens: number }): number {
  const { tail } = options;
  let kept = 0;
  let tokens = 0;
  for (let index = tail.length - 1; index >= 0 && kept < options.events; index--) {
    const cost = estimateEventTokens(tail[index]!);
    if (tokens + cost > options.tokens) break;
    tokens += cost;
    kept++;
  }
  return kept;
}

/**
 * The default token budget of the retained tail for a threshold or window of `tokens`:
 * `COMPACTION_DEFAULTS.retentionTokenShare` of it, room for the summary and new turns above it.
 */
export function retentionTokensFor(tokens: number): number {
  return Math.floor(tokens * COMPACTION_DEFAULTS.retentionTokenShare);
}

/** The retention a plan uses: explicit override, else the config (overflow halves it). */
export function resolveRetention(
  options: Pick<PlanCompactionOptions, 'trigger' | 'config' | 'retention'>,
): Required<RetentionOverride> {
  const { config, trigger } = options;
  const threshold = config.tokenThreshold;
  let events = config.eventRetentionSize ?? 0;
  let tokens =
    config.retentionTokenBudget ??
    (threshold && threshold > 0 ? retentionTokensFor(threshold) : Number.POSITIVE_INFINITY);
  if (trigger === 'overflow') {
    events = Math.floor(events / 2);
    tokens = Math.floor(tokens / 2);
  }
  return {
    events: Math.max(0, options.retention?.events ?? events),
    tokens: Math.max(0, options.retention?.tokens ?? tokens),
  };
}

/**
 * Where the step in progress begins: the last model turn when it made calls and only their
 * responses follow it (a tool loop about to call the model again); `tail.length` otherwise.
 * Token, overflow and manual compactions never summarize that step: a model must read its
 * tools' results itself, not a summary of them; an oversized result is truncated in the view
 * by the ceilings instead.
 */
export function currentStepStart(tail: Event[]): number {
  for (let index = tail.length - 1; index >= 0; index--) {
    const content = tail[index]!.content;
    if (!content || tail[index]!.partial) continue;
    if (content.role === 'model') {
      return content.parts.some((part) => part.functionCall) ? index : tail.length;
    }
    if (content.parts.some((part) => part.functionResponse === undefined)) return tail.length;
  }
  return tail.length;
}

/**
 * The message the user sent to the running invocation, while the model has not read it yet (no
 * model content of that invocation follows it): its index in `tail`, else -1. It is never
 * summarized in the turn it arrives in: the model reads it whole or the turn fails saying it is
 * too large (`MessageTooLargeError`), never a summary of it.
 */
export function unreadUserMessageIndex(
  tail: readonly Event[],
  currentInvocationId: string | undefined,
): number {
  if (currentInvocationId === undefined) return -1;
  for (let index = tail.length - 1; index >= 0; index--) {
    const event = tail[index]!;
    if (event.invocationId !== currentInvocationId || event.partial) continue;
    const content = event.content;
    if (!content) continue;
    if (content.role === 'model') return -1;
    if (
      event.author === 'user' &&
      content.parts.some((part) => part.functionResponse === undefined)
    ) {
      return index;
    }
  }
  return -1;
}

function skip(reason: CompactionSkip['reason'], tokensBefore: number): CompactionSkip {
  return { kind: 'skip', reason, tokensBefore };
}

/** Where a range to summarize should end (an index in `tail`), the overlap, or a skip. */
type DesiredEnd = { endIndex: number; overlap: Event[] } | CompactionSkip;

/** The sliding window: every completed invocation (a running one and what follows it stay). */
function slidingWindowEnd(
  options: PlanCompactionOptions,
  tail: Event[],
  tokensBefore: number,
): DesiredEnd {
  const { config, checkpoint, currentInvocationId } = options;
  const interval = config.compactionInterval;
  if (!interval || interval <= 0) return skip('disabled', tokensBefore);
  const completed = countCompletedInvocations({ tail, currentInvocationId });
  if (completed === 0) return skip('nothing_to_compact', tokensBefore);
  if (options.force !== true && completed < interval) {
    return skip('interval_not_reached', tokensBefore);
  }
  const running =
    currentInvocationId === undefined
      ? -1
      : tail.findIndex((event) => event.invocationId === currentInvocationId);
  const endSeq = checkpoint?.actions.compaction.endSeq ?? Number.NEGATIVE_INFINITY;
  return {
    endIndex: running === -1 ? tail.length - 1 : running - 1,
    overlap: (options.overlapEvents ?? []).filter(
      (event) => !event.actions?.compaction && event.seq <= endSeq,
    ),
  };
}

/**
 * Token, overflow and manual triggers: due at the threshold (unless forced, or backing off
 * after an ineffective compaction); everything before the retained tail, the step in progress
 * and the user's unread message.
 */
function tokenTriggerEnd(
  options: PlanCompactionOptions,
  tail: Event[],
  tokensBefore: number,
  force: boolean,
  rule: ElisionEvent | undefined,
): DesiredEnd {
  const { config, checkpoint, trigger, currentInvocationId } = options;
  const threshold = config.tokenThreshold;
  if (trigger === 'token_threshold' && (!threshold || threshold <= 0)) {
    return skip('disabled', tokensBefore);
  }
  if (!force && threshold) {
    if (tokensBefore < threshold) return skip('below_threshold', tokensBefore);
    // Anti-thrash measures from the newest record that changed the view: a later elision rule
    // re-measured it (docs/architecture.md#elision-the-cheap-tier).
    const previousAfter =
      rule && (!checkpoint || rule.seq > checkpoint.seq)
        ? rule.actions.elision.tokensAfter
        : checkpoint?.actions.compaction.tokensAfter;
    if (
      previousAfter !== undefined &&
      previousAfter >= threshold &&
      tokensBefore < previousAfter + INEFFECTIVE_BACKOFF_RATIO * threshold
    ) {
      return skip('ineffective_backoff', tokensBefore);
    }
  }
  const retention = resolveRetention({ trigger, config, retention: options.retention });
  const unread = unreadUserMessageIndex(tail, currentInvocationId);
  const endIndex = Math.min(
    tail.length - 1 - retainedCount({ tail, ...retention }),
    currentStepStart(tail) - 1,
    unread === -1 ? tail.length - 1 : unread - 1,
  );
  return { endIndex, overlap: [] };
}

/**
 * The cheap tier (docs/architecture.md#elision-the-cheap-tier): for the unforced token trigger
 * with `config.elision` set, an elision rule up to the retained tail's boundary when it brings
 * the next request far enough under the threshold.
 */
function elisionTier(
  options: PlanCompactionOptions,
  tail: Event[],
  rule: ElisionEvent | undefined,
  endIndex: number,
  tokensBefore: number,
): ElisionPlan | undefined {
  const { config, trigger } = options;
  if (!config.elision || !config.tokenThreshold || trigger !== 'token_threshold') return undefined;
  if (options.force === true) return undefined;
  const current = rule?.actions.elision;
  const candidate = planElision({
    tail,
    endIndex,
    current,
    elision: config.elision,
    tokenThreshold: config.tokenThreshold,
    tokensBefore,
  });
  return candidate && { kind: 'elide', trigger, tokensBefore, ...candidate };
}

/** Pure decision: what to summarize now, or why not (the elision tier left out). */
export function planCompaction(options: PlanCompactionOptions): CompactionDecision {
  return decide(options, false) as CompactionDecision;
}

/**
 * Pure decision with the cheap tier first (docs/architecture.md#elision-the-cheap-tier): an
 * elision rule when `config.elision` is set and it suffices, else `planCompaction`'s decision.
 */
export function planTieredCompaction(options: PlanCompactionOptions): TieredCompactionDecision {
  return decide(options, true);
}

function decide(options: PlanCompactionOptions, withElision: boolean): TieredCompactionDecision {
  const { checkpoint, trigger, currentInvocationId } = options;
  // Elision events are view rules, not conversation: they count in neither range nor tail.
  const ruleTail = options.tail.filter((event) => !event.actions?.compaction);
  const tail = ruleTail.filter((event) => !isElisionEvent(event));
  const rule = latestElision(ruleTail);
  const tokensBefore = estimateNextRequest({ ...options, tail: ruleTail }).tokens;
  const force = options.force === true || trigger === 'manual' || trigger === 'overflow';
  const desired =
    trigger === 'sliding_window'
      ? slidingWindowEnd(options, tail, tokensBefore)
      : tokenTriggerEnd(options, tail, tokensBefore, force, rule);
  if ('kind' in desired) return desired;
  if (desired.endIndex < 0) return skip('nothing_to_compact', tokensBefore);
  const elision = withElision && elisionTier(options, tail, rule, desired.endIndex, tokensBefore);
  if (elision) return elision;
  const split = findSafeSplit({
    events: tail,
    desiredEndIndex: desired.endIndex,
    currentInvocationId,
  });
  if (split.endIndex < 0) return skip('no_safe_split', tokensBefore);

  const summarized = tail.slice(0, split.endIndex + 1);
  const first = summarized[0]!;
  const last = summarized[summarized.length - 1]!;
  const previous = checkpoint?.actions.compaction;
  const overlap = desired.overlap;
  const events = overlap.length > 0 ? [...overlap, ...summarized] : summarized;
  return {
    kind: 'compact',
    trigger,
    expectedCheckpointSeq: checkpoint?.seq ?? null,
    previousSummary: previous?.compactedContent,
    events,
    startSeq: previous?.startSeq ?? first.seq,
    endSeq: last.seq,
    startTimestamp: Math.min(previous?.startTimestamp ?? first.timestamp, events[0]!.timestamp),
    endTimestamp: last.timestamp,
    retained: tail.slice(split.endIndex + 1),
    tokensBefore,
    deadCalls: split.deadCalls satisfies DeadCall[],
  };
}
