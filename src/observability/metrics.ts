/**
 * Compaction metrics (docs/architecture.md#where-each-rule-lives); the per-model-call metrics are
 * `model-metrics.ts`, in the same registry. Both register through `registered-metric.ts`.
 */
import { type Counter, type Histogram, Registry } from 'prom-client';
import type { CompactionRecord } from './compaction-record.js';
import { registeredCounter, registeredHistogram } from './registered-metric.js';

export interface CompactionMetricsOptions {
  /** Where the metrics register; a new `Registry` when omitted (never prom-client's global). */
  registry?: Registry;
}

export interface CompactionMetrics {
  readonly registry: Registry;
  readonly compactionTotal: Counter<'trigger' | 'outcome'>;
  readonly compactionDuration: Histogram<'trigger' | 'outcome'>;
  readonly tokensBefore: Histogram<'trigger'>;
  readonly tokensAfter: Histogram<'trigger'>;
  readonly ineffectiveTotal: Counter<'trigger'>;
  readonly summarizerFailuresTotal: Counter<'summarizer'>;
  /** Compactions a fallback summarizer wrote, by the one that failed (`from`) and the writer. */
  readonly summarizerFallbacksTotal: Counter<'from' | 'to'>;
  /** Summarizer calls not made because the summarizer was cooling down after a failure. */
  readonly summarizerSkipsTotal: Counter<'summarizer'>;
  /** Counts one compaction attempt from the Compactor's report. */
  recordCompaction(report: CompactionRecord): void;
  recordSummarizerFailure(summarizerName: string): void;
}

const durationBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const tokenBuckets = [1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

export function createCompactionMetrics(options: CompactionMetricsOptions = {}): CompactionMetrics {
  const registry = options.registry ?? new Registry();
  const compactionTotal = registeredCounter(registry, {
    name: 'orrery_context_compaction_total',
    help: 'Compaction attempts by trigger and outcome (compacted, skipped, failed, conflict).',
    labelNames: ['trigger', 'outcome'] as const,
  });
  const compactionDuration = registeredHistogram(registry, {
    name: 'orrery_context_compaction_duration_seconds',
    help: 'Duration of compaction attempts, summarizer included.',
    labelNames: ['trigger', 'outcome'] as const,
    buckets: durationBuckets,
  });
  const tokensBefore = registeredHistogram(registry, {
    name: 'orrery_context_compaction_tokens_before',
    help: 'Estimated tokens of the next request before a successful compaction.',
    labelNames: ['trigger'] as const,
    buckets: tokenBuckets,
  });
  const tokensAfter = registeredHistogram(registry, {
    name: 'orrery_context_compaction_tokens_after',
    help: 'Estimated tokens of the next request after a successful compaction.',
    labelNames: ['trigger'] as const,
    buckets: tokenBuckets,
  });
  const ineffectiveTotal = registeredCounter(registry, {
    name: 'orrery_context_compaction_ineffective_total',
    help: 'Compactions that left the estimate at or over the threshold (the tail alone is over).',
    labelNames: ['trigger'] as const,
  });
  const summarizerFailuresTotal = registeredCounter(registry, {
    name: 'orrery_summarizer_failures_total',
    help: 'Summarizer calls that failed (a fallback may still have compacted).',
    labelNames: ['summarizer'] as const,
  });
  const summarizerFallbacksTotal = registeredCounter(registry, {
    name: 'orrery_summarizer_fallbacks_total',
    help: 'Compactions whose summary a fallback wrote (from: the summarizer that failed, to: the one that wrote it).',
    labelNames: ['from', 'to'] as const,
  });

  const summarizerSkipsTotal = registeredCounter(registry, {
    name: 'orrery_summarizer_skips_total',
    help: 'Summarizer calls not made because the summarizer was cooling down after a failure (docs/resilience.md).',
    labelNames: ['summarizer'] as const,
  });

  return {
    registry,
    compactionTotal,
    compactionDuration,
    tokensBefore,
    tokensAfter,
    ineffectiveTotal,
    summarizerFailuresTotal,
    summarizerFallbacksTotal,
    summarizerSkipsTotal,
    recordCompaction(report) {
      const { trigger, outcome } = report;
      if (report.coolDown?.cause !== undefined) {
        summarizerSkipsTotal.inc({ summarizer: report.coolDown.summarizer });
      }
      compactionTotal.inc({ trigger, outcome });
      compactionDuration.observe({ trigger, outcome }, report.durationMs / 1000);
      if (outcome === 'compacted') {
        // Only an applied compaction can be ineffective (a lost race changed nothing).
        if (report.ineffective) ineffectiveTotal.inc({ trigger });
        tokensBefore.observe({ trigger }, report.tokensBefore);
        if (report.tokensAfter !== undefined) tokensAfter.observe({ trigger }, report.tokensAfter);
        if (report.fallback) {
          summarizerFallbacksTotal.inc({
            from: report.fallback.from,
            to: report.summarizer ?? 'unknown',
          });
        }
      }
    },
    recordSummarizerFailure(summarizerName) {
      summarizerFailuresTotal.inc({ summarizer: summarizerName });
    },
  };
}
