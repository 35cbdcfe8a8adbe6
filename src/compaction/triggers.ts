// CONTRACT STUB — implemented by the core-logic work. Signatures are fixed; bodies are not.
import type { CompactionEvent, CompactionTrigger, Event } from '../events/types.js';
import type { CompactionDecision, EventsCompactionConfig } from './types.js';

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
}

/**
 * The next request's size: the latest `promptTokenCount` reported after the checkpoint by this
 * agent and branch (never a compaction event's), plus estimates of everything after it.
 */
export function estimateNextRequest(options: EstimateNextRequestOptions): RequestEstimate {
  throw new Error('not implemented');
}

/** Completed invocations in the tail (the running one excluded). */
export function countCompletedInvocations(options: {
  tail: Event[];
  currentInvocationId?: string;
}): number {
  throw new Error('not implemented');
}

export interface PlanCompactionOptions {
  trigger: CompactionTrigger;
  config: EventsCompactionConfig;
  checkpoint?: CompactionEvent;
  tail: Event[];
  /**
   * Sliding window: raw events before the checkpoint's end that belong to the `overlapSize`
   * invocations to re-read (the Compactor reads them from storage). Ignored otherwise.
   */
  overlapEvents?: Event[];
  agentName?: string;
  branch?: string;
  overheadTokens?: number;
  /** The invocation still running: its open calls are not dead. */
  currentInvocationId?: string;
  /** Overflow and ceilings: keep fewer events / tokens than the config asks. */
  retention?: { events?: number; tokens?: number };
  /** Compact regardless of thresholds (manual, overflow). */
  force?: boolean;
}

/** Pure decision: what to compact now, or why not. */
export function planCompaction(options: PlanCompactionOptions): CompactionDecision {
  throw new Error('not implemented');
}
