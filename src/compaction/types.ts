/**
 * The compaction contract: configuration, the summarizer interface and the plan the pure core
 * hands to the Compactor. No I/O here.
 */

import type {
  CompactionEvent,
  CompactionTrigger,
  Content,
  Event,
  UsageMetadata,
} from '../events/types.js';

/** Which branch a view is assembled for (`branch-view.ts`). `branch` absent: the trunk. */
export interface ViewScope {
  branch?: string;
}

export interface Summary {
  /** Role `model`: becomes the compaction event's `compactedContent`. */
  content: Content;
  /** The summarizer's own usage, stored on the compaction event. */
  usageMetadata?: UsageMetadata;
  /** Who actually wrote it, when a wrapper (e.g. a fallback) chose among summarizers. */
  summarizer?: string;
  /**
   * Set by a wrapper whose fallback wrote it: the summarizer that failed first and its error's
   * message (credentials masked). Recorded on the compaction event.
   */
  fallback?: { from: string; reason: string };
}

export interface SummarizeOptions {
  /** The raw events to fold into the summary, in `seq` order. */
  events: Event[];
  /** The checkpoint's summary: every compaction is a rolling summary that includes it. */
  previousSummary?: Content;
  signal?: AbortSignal;
}

export interface EventsSummarizer {
  /** Model id or name, recorded as the compaction's `summarizer`. */
  readonly name: string;
  /** `null` skips this window (nothing worth summarizing). Throws `SummarizerError` on failure. */
  summarize(options: SummarizeOptions): Promise<Summary | null>;
}

/**
 * The elision tier (docs/architecture.md#elision-the-cheap-tier): set (even `{}`) turns it on,
 * for the token trigger only. Unset fields take `ELISION_DEFAULTS`.
 */
export interface ElisionConfig {
  /** Tool outputs over this many bytes (serialized `response`) are elided (default 2000). */
  minOutputBytes?: number;
  /**
   * Elision is chosen over a summary only when it brings the next request to at most
   * `tokenThreshold - minReclaimTokens` (default: a tenth of `tokenThreshold`).
   */
  minReclaimTokens?: number;
}

/** Code options for `createEventsCompactionConfig`. Each trigger pair is set together. */
export interface EventsCompactionOptions {
  /** Token trigger: compact when the next request is estimated at or above this. */
  tokenThreshold?: number;
  /** Events kept verbatim after a token-triggered compaction. */
  eventRetentionSize?: number;
  /** Sliding window: compact after this many completed invocations since the checkpoint. */
  compactionInterval?: number;
  /** Invocations before the new ones that the next window re-reads. */
  overlapSize?: number;
  summarizer?: EventsSummarizer;
  /** Byte ceiling of a request's contents; the tail shrinks, then tool output is truncated in the view. */
  maxRequestBytes?: number;
  /** Token budget of the retained tail (default: a quarter of `tokenThreshold`). */
  retentionTokenBudget?: number;
  /**
   * How long one summarizer attempt may take (default 120 000 ms); past it the attempt fails
   * (the fallback runs) and the summarizer's signal aborts.
   */
  summarizerTimeoutMs?: number;
  /**
   * After a summarizer fails or times out, it is not called again for this long (default
   * 60 000 ms), doubled with each failure in a row up to `summarizerMaxCoolDownMs`; meanwhile a
   * compaction the request does not need yet is skipped and an overflow goes to the fallback
   * or the ceilings without waiting (docs/resilience.md). 0 turns the cool-down off.
   */
  summarizerCoolDownMs?: number;
  /** The longest cool-down (default 1 800 000 ms, 30 minutes). */
  summarizerMaxCoolDownMs?: number;
  /**
   * The elision tier before a summary: `true` or settings turn it on, `false` off (default off,
   * or `ORRERY_COMPACTION_ELISION`). Needs the token trigger.
   */
  elision?: boolean | (ElisionConfig & { enabled?: boolean });
  /**
   * Cost-aware compaction (docs/cost.md#cost-aware-compaction): before each model call, choose
   * when (under the threshold too) and how deep to compact by the expected spend at these
   * catalog prices. Never above the threshold or a ceiling. `false` or unset: off.
   */
  costAware?: CostAwareConfig | false;
  /**
   * When the summarizer is the agent's own model (the Runner's default), a summary re-sends the
   * agent's last request as sent (its cached prefix, billed as a cache read) plus the newer
   * events and a summary instruction, falling back to the standalone summarizer
   * (docs/cost.md#summaries-that-reuse-the-agents-cache). Default true, or
   * `ORRERY_COMPACTION_REUSE_AGENT_PREFIX`.
   */
  reuseAgentPrefix?: boolean;
}

/** Prices of cost-aware compaction, as catalog ids (`provider:model`). */
export interface CostAwareConfig {
  /** The agent's model, e.g. `anthropic:claude-sonnet-4-5`: its prices and cache rules. */
  price: string;
  /** The summarizer's model price. Default: `price`. */
  summarizerPrice?: string;
}

/** The cost-aware choice behind one compaction (docs/cost.md#cost-aware-compaction). */
export interface CostChoiceNote {
  /** `threshold`: required, depth chosen; `cheaper_now` / `cold_cache`: early, under the threshold. */
  reason: 'threshold' | 'cheaper_now' | 'cold_cache';
  /** Tokens of the retained tail the choice asked for. */
  retainedTokens: number;
  /** Expected USD of the choice, and of compacting only at the threshold at the configured depth. */
  expectedUsd: number;
  thresholdOnlyUsd: number;
}

/**
 * A validated configuration (`createEventsCompactionConfig` returns it, or `null` when disabled):
 * the options' fields, with elision resolved to its settings.
 */
export interface EventsCompactionConfig extends Omit<EventsCompactionOptions, 'elision'> {
  /** Set: the elision tier runs before a summary is paid for (token trigger only). */
  elision?: ElisionConfig;
  /** Set: cost-aware compaction (token trigger only). */
  costAware?: CostAwareConfig;
}

/** Overflow and ceilings: keep fewer events / tokens than the config asks. */
export interface RetentionOverride {
  events?: number;
  tokens?: number;
}

/**
 * What a caller asks of one compaction attempt. The planner (`PlanCompactionOptions`), the
 * `Compactor` (`CompactOptions`) and the Runner's guard (`GuardCompactOptions`) all extend it,
 * so a new option is declared here once and passed through.
 */
export interface CompactionRequest {
  trigger: CompactionTrigger;
  /** The agent whose reported `promptTokenCount` anchors the estimate. */
  agentName?: string;
  branch?: string;
  /**
   * Under a workflow with branches: the view compacted is `scope.branch`'s (the trunk's when
   * absent), and a branch's summary is stored on the branch (docs/workflows.md).
   */
  scope?: ViewScope;
  /** System instruction + tool declarations of the next request. */
  overheadTokens?: number;
  /** The invocation still running: its open calls are not dead. */
  currentInvocationId?: string;
  retention?: RetentionOverride;
  /** Compact regardless of thresholds (manual, overflow). */
  force?: boolean;
  /** Set when cost-aware compaction chose this attempt (or its depth): reported as is. */
  costChoice?: CostChoiceNote;
}

export interface DeadCall {
  callId: string;
  name: string;
  seq: number;
  invocationId: string;
}

/** What the Compactor should summarize and append. */
export interface CompactionPlan {
  kind: 'compact';
  trigger: CompactionTrigger;
  /** `seq` of the checkpoint this plan was computed from (`null`: none) — the append condition. */
  expectedCheckpointSeq: number | null;
  previousSummary?: Content;
  /** Events handed to the summarizer: overlap (sliding window) + the newly summarized range. */
  events: Event[];
  /** The new compaction's range: `startSeq` carries over from the checkpoint (rolling summary). */
  startSeq: number;
  endSeq: number;
  startTimestamp: number;
  endTimestamp: number;
  /** Events that stay verbatim after the compaction. */
  retained: Event[];
  /** Estimated tokens of the next request before compacting. */
  tokensBefore: number;
  /** Calls without responses whose invocation ended: summarized, noted, never blocking. */
  deadCalls: DeadCall[];
}

export interface CompactionSkip {
  kind: 'skip';
  reason:
    | 'disabled'
    | 'below_threshold'
    | 'interval_not_reached'
    | 'nothing_to_compact'
    | 'no_safe_split'
    | 'ineffective_backoff';
  tokensBefore: number;
}

/** The cheap tier: record an elision rule instead of summarizing. */
export interface ElisionPlan {
  kind: 'elide';
  trigger: CompactionTrigger;
  /** Tool outputs over `minOutputBytes` at `seq <= throughSeq` are elided in the view. */
  throughSeq: number;
  minOutputBytes: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Tool outputs this rule elides that the one in force did not. */
  newlyElided: number;
}

export type CompactionDecision = CompactionPlan | CompactionSkip;

/** What the Compactor does: the cheap tier when it suffices, else the summary's decision. */
export type TieredCompactionDecision = CompactionDecision | ElisionPlan;

export type { CompactionEvent };
