/**
 * What metrics and logs read of one compaction attempt. The runtime's `CompactionReport` is one
 * (structurally): declared here so observability depends on the event model only, never on the
 * runtime that reports.
 */
import type { CompactionTrigger, SummaryRequestNote } from '../events/types.js';

export interface CompactionRecord {
  sessionId: string;
  trigger: CompactionTrigger;
  outcome: 'compacted' | 'elided' | 'skipped' | 'failed' | 'conflict';
  reason?: string;
  startSeq?: number;
  endSeq?: number;
  tokensBefore: number;
  tokensAfter?: number;
  durationMs: number;
  ineffective?: boolean;
  error?: unknown;
  /** The summarizer that wrote the summary (or the last one that failed to). */
  summarizer?: string;
  /** Set when a fallback wrote the summary: who failed first and why. */
  fallback?: { from: string; reason: string };
  /** How the summary was asked for, as on the stored event (docs/cost.md). */
  summaryRequest?: SummaryRequestNote;
  /**
   * The summarizer's cool-down: with `cause`, the summarizer was not called (the attempt was
   * skipped, or the fallback wrote without waiting); without, the one a failure started.
   */
  coolDown?: {
    summarizer: string;
    failures: number;
    untilMs: number;
    skipped: number;
    cause?: string;
  };
  /**
   * Set when cost-aware compaction chose this attempt or its depth (docs/cost.md#cost-aware-compaction):
   * why, the retained tail it asked for, and the expected USD of the choice against compacting
   * only at the threshold at the configured depth.
   */
  costChoice?: {
    reason: string;
    retainedTokens: number;
    expectedUsd: number;
    thresholdOnlyUsd: number;
  };
}
