import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { UsageMetadata } from '../events/types.js';
import { registeredCounter, registeredGauge, registeredHistogram } from './registered-metric.js';

export interface ModelCallRecord {
  modelId: string;
  outcome: 'ok' | 'error';
  durationMs: number;
  usage?: UsageMetadata;
  /** Attempts the call took (1 when it was not retried). */
  attempts: number;
  /** This call is the retry after a context-overflow rejection. */
  overflowRetry?: boolean;
  /** Estimated USD of the call from its usage at catalog prices (docs/cost.md#live-spend). */
  usd?: number;
}

export interface ModelMetrics {
  readonly requestsTotal: Counter<'model' | 'outcome'>;
  readonly requestDuration: Histogram<'model' | 'outcome'>;
  readonly tokensTotal: Counter<'model' | 'type'>;
  readonly retriesTotal: Counter<'model'>;
  readonly overflowRetriesTotal: Counter<'model'>;
  /** Cached input tokens over input tokens since the Runner started, per model. */
  readonly promptCacheHitRatio: Gauge<'model'>;
  /** Estimated USD of model calls whose model has a catalog price. */
  readonly costUsdTotal: Counter<'model'>;
  recordModelCall(record: ModelCallRecord): void;
}

const durationBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

/** Per model call: requests, latency, tokens (cached input included), retries, overflow retries. */
export function createModelMetrics(options: { registry: Registry }): ModelMetrics {
  const { registry } = options;
  const requestsTotal = registeredCounter(registry, {
    name: 'orrery_model_requests_total',
    help: 'Model calls by model and outcome (ok, error), retries included in one call.',
    labelNames: ['model', 'outcome'] as const,
  });
  const requestDuration = registeredHistogram(registry, {
    name: 'orrery_model_request_duration_seconds',
    help: 'Duration of model calls, retries and backoff included.',
    labelNames: ['model', 'outcome'] as const,
    buckets: durationBuckets,
  });
  const tokensTotal = registeredCounter(registry, {
    name: 'orrery_model_tokens_total',
    help: 'Tokens the provider reported, by type: input, output, cached_input (input served from the prompt cache).',
    labelNames: ['model', 'type'] as const,
  });
  const retriesTotal = registeredCounter(registry, {
    name: 'orrery_model_retries_total',
    help: 'Retries of model calls after a retryable provider error (429, 5xx, network).',
    labelNames: ['model'] as const,
  });
  const overflowRetriesTotal = registeredCounter(registry, {
    name: 'orrery_model_overflow_retries_total',
    help: 'Model calls sent again after the provider rejected the request for size.',
    labelNames: ['model'] as const,
  });
  const totals = new Map<string, { input: number; cached: number }>();
  const promptCacheHitRatio = registeredGauge(registry, {
    name: 'orrery_prompt_cache_hit_ratio',
    help: 'Cached input tokens / input tokens reported by the provider since start, per model.',
    labelNames: ['model'] as const,
  });
  const costUsdTotal = registeredCounter(registry, {
    name: 'orrery_model_cost_usd_total',
    help: 'Estimated USD of model calls from reported usage (cache reads and writes at their prices) at catalog prices; calls of a model without a price are not counted.',
    labelNames: ['model'] as const,
  });
  return {
    requestsTotal,
    costUsdTotal,
    requestDuration,
    tokensTotal,
    retriesTotal,
    overflowRetriesTotal,
    promptCacheHitRatio,
    recordModelCall(record) {
      const model = record.modelId;
      requestsTotal.inc({ model, outcome: record.outcome });
      requestDuration.observe({ model, outcome: record.outcome }, record.durationMs / 1000);
      if (record.attempts > 1) retriesTotal.inc({ model }, record.attempts - 1);
      if (record.overflowRetry) overflowRetriesTotal.inc({ model });
      if (record.usd !== undefined && record.usd > 0) costUsdTotal.inc({ model }, record.usd);
      const usage = record.usage;
      if (!usage) return;
      const input = usage.promptTokenCount ?? 0;
      const cached = usage.cachedContentTokenCount ?? 0;
      if (input > 0) tokensTotal.inc({ model, type: 'input' }, input);
      if (usage.candidatesTokenCount) {
        tokensTotal.inc({ model, type: 'output' }, usage.candidatesTokenCount);
      }
      if (cached > 0) tokensTotal.inc({ model, type: 'cached_input' }, cached);
      const total = totals.get(model) ?? { input: 0, cached: 0 };
      total.input += input;
      total.cached += cached;
      totals.set(model, total);
      if (total.input > 0) promptCacheHitRatio.set({ model }, total.cached / total.input);
    },
  };
}
