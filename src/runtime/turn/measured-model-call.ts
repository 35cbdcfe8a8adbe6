/**
 * One model call measured: the model wrapped to count attempts (retries included), with its
 * `chat` span and per-model-call metrics (docs/architecture.md#where-each-rule-lives).
 */

import type { TokenPrices } from '../../costs/types.js';
import type { Model, ModelRequest, ModelResponse } from '../../models/types.js';
import type { ModelMetrics } from '../../observability/model-metrics.js';
import {
  modelAttributes,
  type Telemetry,
  type TelemetrySpan,
} from '../../observability/telemetry.js';
import { responseUsd } from './live-spend.js';

export interface MeasureModelCallOptions {
  model: Model;
  agentName: string;
  sessionId: string;
  /** The call retries a request a provider rejected for size. */
  overflowRetry: boolean;
  telemetry?: Telemetry;
  /** The `invoke_agent` span the `chat` span is a child of. */
  parentSpan?: TelemetrySpan;
  modelMetrics?: ModelMetrics;
  /** The model's catalog prices: each call's estimated USD is counted (docs/cost.md#live-spend). */
  prices?: TokenPrices;
}

export interface MeasuredModelCall {
  /** The model to call: counts each attempt. */
  model: Model;
  /** Ends the span and records the metrics once, with the response's usage or the error. */
  finish(response?: ModelResponse, error?: unknown): void;
}

/** The model wrapped to count attempts, with its `chat` span and metrics. */
export function measureModelCall(options: MeasureModelCallOptions): MeasuredModelCall {
  const { model: inner, overflowRetry } = options;
  const started = performance.now();
  const attributes = modelAttributes(inner.modelId);
  const span = options.telemetry?.startSpan({
    name: `chat ${attributes['gen_ai.request.model']}`,
    kind: 'client',
    parent: options.parentSpan,
    attributes: {
      'gen_ai.operation.name': 'chat',
      ...attributes,
      'gen_ai.agent.name': options.agentName,
      'gen_ai.conversation.id': options.sessionId,
      'orrery.overflow_retry': overflowRetry || undefined,
    },
  });
  let attempts = 0;
  const stream = inner.stream;
  const model: Model = {
    modelId: inner.modelId,
    contextWindowTokens: inner.contextWindowTokens,
    generate: (request: ModelRequest) => {
      attempts++;
      return inner.generate(request);
    },
    ...(stream && {
      stream: (request: ModelRequest, streamOptions?: { signal?: AbortSignal }) => {
        attempts++;
        return stream.call(inner, request, streamOptions);
      },
    }),
  };
  return {
    model,
    finish: (response, error) => {
      const usage = response?.usageMetadata;
      const usd = responseUsd(options.prices, response);
      options.modelMetrics?.recordModelCall({
        modelId: inner.modelId,
        outcome: error === undefined ? 'ok' : 'error',
        durationMs: performance.now() - started,
        usage,
        attempts: Math.max(1, attempts),
        overflowRetry,
        ...(usd !== undefined && { usd }),
      });
      if (!span) return;
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage?.promptTokenCount,
        'gen_ai.usage.output_tokens': usage?.candidatesTokenCount,
        'gen_ai.usage.cache_read.input_tokens': usage?.cachedContentTokenCount,
        'gen_ai.usage.cache_creation.input_tokens': response?.cacheWriteTokenCount,
        'orrery.cost.usd': usd,
        // A list, per the conventions (one candidate here).
        'gen_ai.response.finish_reasons':
          response?.finishReason === undefined ? undefined : [response.finishReason],
        'gen_ai.response.id': response?.responseId,
        'gen_ai.response.model': response?.responseModel,
        'orrery.model.attempts': Math.max(1, attempts),
      });
      if (error !== undefined) span.fail(error);
      span.end();
    },
  };
}
