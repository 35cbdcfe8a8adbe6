import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Model, ModelResponse } from '../../models/types.js';
import { createModelMetrics } from '../../observability/model-metrics.js';
import { responseUsd, SpendPrices } from './live-spend.js';
import { measureModelCall } from './measured-model-call.js';

const sonnet = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

const response: ModelResponse = {
  content: { role: 'model', parts: [{ text: 'ok' }] },
  usageMetadata: {
    promptTokenCount: 10_000,
    cachedContentTokenCount: 8_000,
    candidatesTokenCount: 200,
  },
  cacheWriteTokenCount: 1_500,
};
// 500 uncached, 8,000 read, 1,500 written, 200 out.
const expected = (500 * 3 + 8_000 * 0.3 + 1_500 * 3.75 + 200 * 15) / 1e6;

describe('live spend', () => {
  it('prices a response from its usage, cache reads and writes included', () => {
    expect(responseUsd(sonnet, response)).toBeCloseTo(expected, 12);
    expect(responseUsd(undefined, response)).toBeUndefined();
    expect(responseUsd(sonnet, { content: { role: 'model', parts: [] } })).toBeUndefined();
  });

  it('looks each model up once and gives no price for an unknown or provider-less id', async () => {
    const asked: string[] = [];
    const prices = new SpendPrices({
      lookup: async ({ provider, model }) => {
        asked.push(`${provider}:${model}`);
        if (model === 'imaginary') throw new Error('no price');
        return { prices: sonnet };
      },
    });
    expect(await prices.pricesFor('anthropic:claude-sonnet-4-5')).toEqual(sonnet);
    expect(await prices.pricesFor('anthropic:claude-sonnet-4-5')).toEqual(sonnet);
    expect(await prices.pricesFor('anthropic:imaginary')).toBeUndefined();
    expect(await prices.pricesFor('mock')).toBeUndefined();
    expect(asked).toEqual(['anthropic:claude-sonnet-4-5', 'anthropic:imaginary']);
  });

  it('counts the estimate in orrery_model_cost_usd_total and on the chat span', async () => {
    const registry = new Registry();
    const modelMetrics = createModelMetrics({ registry });
    const attributes: Record<string, unknown> = {};
    const model: Model = { modelId: 'anthropic:claude-sonnet-4-5', generate: async () => response };
    const call = measureModelCall({
      model,
      agentName: 'agent',
      sessionId: 's',
      overflowRetry: false,
      modelMetrics,
      prices: sonnet,
      telemetry: {
        startSpan: () => ({
          setAttributes: (values: Record<string, unknown>) => Object.assign(attributes, values),
          fail: () => {},
          end: () => {},
        }),
      } as never,
    });
    call.finish(await call.model.generate({ contents: [] } as never));
    call.finish(response);
    const metric = await registry.getSingleMetric('orrery_model_cost_usd_total')?.get();
    expect(metric?.values[0]?.labels).toEqual({ model: 'anthropic:claude-sonnet-4-5' });
    expect(metric?.values[0]?.value).toBeCloseTo(2 * expected, 12);
    expect(attributes['orrery.cost.usd']).toBeCloseTo(expected, 12);
    expect(attributes['gen_ai.usage.cache_creation.input_tokens']).toBe(1_500);
  });

  it('counts nothing for a model without a price', async () => {
    const registry = new Registry();
    const modelMetrics = createModelMetrics({ registry });
    const model: Model = { modelId: 'mock', generate: async () => response };
    const call = measureModelCall({
      model,
      agentName: 'agent',
      sessionId: 's',
      overflowRetry: false,
      modelMetrics,
    });
    call.finish(response);
    const metric = await registry.getSingleMetric('orrery_model_cost_usd_total')?.get();
    expect(metric?.values).toEqual([]);
  });
});
