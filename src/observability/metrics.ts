import { Counter, Histogram, Registry } from 'prom-client';
import type { CompactionRecord } from './compaction-record.js';

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
  /** Counts one compaction attempt from the Compactor's report. */
  recordCompaction(report: CompactionRecord): void;
  recordSummarizerFailure(summarizerName: string): void;
}

const durationBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const tokenBuckets = [1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

/**
 * Reuses a metric already in the registry, so several Runners can share one registry (the
 * second registration of a name would otherwise throw).
 */
function reuse<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

export function createCompactionMetrics(options: CompactionMetricsOptions = {}): CompactionMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  const compactionTotal = reuse(
    registry,
    'orrery_context_compaction_total',
    () =>
      new Counter({
        name: 'orrery_context_compaction_total',
        help: 'Compaction attempts by trigger and outcome (compacted, skipped, failed, conflict).',
        labelNames: ['trigger', 'outcome'] as const,
        registers,
      }),
  );
  const compactionDuration = reuse(
    registry,
    'orrery_context_compaction_duration_seconds',
    () =>
      new Histogram({
        name: 'orrery_context_compaction_duration_seconds',
        help: 'Duration of compaction attempts, summarizer included.',
        labelNames: ['trigger', 'outcome'] as const,
        buckets: durationBuckets,
        registers,
      }),
  );
  const tokensBefore = reuse(
    registry,
    'orrery_context_compaction_tokens_before',
    () =>
      new Histogram({
        name: 'orrery_context_compaction_tokens_before',
        help: 'Estimated tokens of the next request before a successful compaction.',
        labelNames: ['trigger'] as const,
        buckets: tokenBuckets,
        registers,
      }),
  );
  const tokensAfter = reuse(
    registry,
    'orrery_context_compaction_tokens_after',
    () =>
      new Histogram({
        name: 'orrery_context_compaction_tokens_after',
        help: 'Estimated tokens of the next request after a successful compaction.',
        labelNames: ['trigger'] as const,
        buckets: tokenBuckets,
        registers,
      }),
  );
  const ineffectiveTotal = reuse(
    registry,
    'orrery_context_compaction_ineffective_total',
    () =>
      new Counter({
        name: 'orrery_context_compaction_ineffective_total',
        help: 'Compactions that left the estimate at or over the threshold (the tail alone is over).',
        labelNames: ['trigger'] as const,
        registers,
      }),
  );
  const summarizerFailuresTotal = reuse(
    registry,
    'orrery_summarizer_failures_total',
    () =>
      new Counter({
        name: 'orrery_summarizer_failures_total',
        help: 'Summarizer calls that failed (a fallback may still have compacted).',
        labelNames: ['summarizer'] as const,
        registers,
      }),
  );
  const summarizerFallbacksTotal = reuse(
    registry,
    'orrery_summarizer_fallbacks_total',
    () =>
      new Counter({
        name: 'orrery_summarizer_fallbacks_total',
        help: 'Compactions whose summary a fallback wrote (from: the summarizer that failed, to: the one that wrote it).',
        labelNames: ['from', 'to'] as const,
        registers,
      }),
  );

  return {
    registry,
    compactionTotal,
    compactionDuration,
    tokensBefore,
    tokensAfter,
    ineffectiveTotal,
    summarizerFailuresTotal,
    summarizerFallbacksTotal,
    recordCompaction(report) {
      const { trigger, outcome } = report;
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
