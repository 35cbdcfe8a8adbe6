import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { CompactionReport } from '../runtime/compaction/compactor.js';
import { createCompactionMetrics } from './metrics.js';

function report(overrides: Partial<CompactionReport>): CompactionReport {
  return {
    sessionId: 's',
    trigger: 'token_threshold',
    outcome: 'compacted',
    tokensBefore: 300_000,
    tokensAfter: 40_000,
    durationMs: 1500,
    ...overrides,
  };
}

describe('createCompactionMetrics', () => {
  it('counts outcomes by trigger and records sizes only for applied compactions', async () => {
    const metrics = createCompactionMetrics();
    metrics.recordCompaction(report({}));
    metrics.recordCompaction(report({ ineffective: true, tokensAfter: 260_000 }));
    metrics.recordCompaction(report({ trigger: 'overflow' }));
    metrics.recordCompaction(report({ outcome: 'skipped', tokensAfter: undefined }));
    metrics.recordCompaction(report({ outcome: 'failed', tokensAfter: undefined }));
    metrics.recordCompaction(report({ outcome: 'conflict', ineffective: true }));
    metrics.recordSummarizerFailure('gemini');

    // Histogram values carry `metricName` (`_bucket`, `_sum`, `_count`); the type omits it.
    type Value = { value: number; labels: Record<string, unknown>; metricName?: string };
    const values = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values as Value[];
    const total = await values('orrery_context_compaction_total');
    const count = (trigger: string, outcome: string) =>
      total.find((value) => value.labels.trigger === trigger && value.labels.outcome === outcome)
        ?.value;
    expect(count('token_threshold', 'compacted')).toBe(2);
    expect(count('overflow', 'compacted')).toBe(1);
    expect(count('token_threshold', 'skipped')).toBe(1);
    expect(count('token_threshold', 'failed')).toBe(1);
    expect(count('token_threshold', 'conflict')).toBe(1);
    // The conflict changed nothing: not ineffective.
    expect((await values('orrery_context_compaction_ineffective_total'))[0]?.value).toBe(1);
    // Replaced by measured prompt-cache metrics (orrery_model_tokens_total{type="cached_input"}).
    expect(metrics.registry.getSingleMetric('orrery_prompt_cache_invalidations_total')).toBe(
      undefined,
    );
    const tokensAfter = await values('orrery_context_compaction_tokens_after');
    const afterCount = tokensAfter.filter((value) => value.metricName?.endsWith('_count'));
    expect(afterCount.reduce((sum, value) => sum + value.value, 0)).toBe(3);
    const duration = await values('orrery_context_compaction_duration_seconds');
    const durationSum = duration.filter((value) => value.metricName?.endsWith('_sum'));
    expect(durationSum.reduce((sum, value) => sum + value.value, 0)).toBeCloseTo(9);
    expect((await values('orrery_summarizer_failures_total'))[0]).toMatchObject({
      labels: { summarizer: 'gemini' },
      value: 1,
    });
  });

  it('uses the registry it is given, or a fresh one each time', () => {
    const registry = new Registry();
    expect(createCompactionMetrics({ registry }).registry).toBe(registry);
    expect(createCompactionMetrics().registry).not.toBe(createCompactionMetrics().registry);
  });
});
