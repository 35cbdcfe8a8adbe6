/**
 * OpenTelemetry spans through `@opentelemetry/api` only (an optional peer): without the package,
 * or without a registered tracer provider, every span is a no-op. Names and attributes follow
 * the `gen_ai.*` semantic conventions; compactions carry `orrery.compaction.*`.
 */
import type * as OtelApi from '@opentelemetry/api';
import { errorMessage } from '../util/error-message.js';

type Api = typeof OtelApi;
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

export interface TelemetrySpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed with the error's class and message, and records an `exception` event. */
  fail(error: unknown): void;
  end(endTime?: number): void;
}

export interface StartSpanOptions {
  name: string;
  attributes?: SpanAttributes;
  /** Parent span; the span is a root (or the active context's child) without one. */
  parent?: TelemetrySpan;
  /** `Date.now()`-style milliseconds; now when omitted. */
  startTime?: number;
  kind?: 'internal' | 'client';
}

const TRACER_NAME = 'orrery';

const noopSpan: TelemetrySpan = {
  setAttributes() {},
  fail() {},
  end() {},
};

class OtelSpan implements TelemetrySpan {
  constructor(
    readonly api: Api,
    readonly span: OtelApi.Span,
  ) {}

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(defined(attributes));
  }

  fail(error: unknown): void {
    const type = error instanceof Error ? error.name : typeof error;
    this.span.setAttribute('error.type', type);
    // The `exception` event the conventions ask for: type, message and stack.
    this.span.recordException(error instanceof Error ? error : String(error));
    this.span.setStatus({
      code: this.api.SpanStatusCode.ERROR,
      message: errorMessage(error),
    });
  }

  end(endTime?: number): void {
    this.span.end(endTime);
  }
}

function defined(attributes: SpanAttributes): OtelApi.Attributes {
  const result: OtelApi.Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) result[key] = value;
  return result;
}

/** Starts spans on the global tracer provider, or does nothing when the API is not installed. */
export class Telemetry {
  private readonly api?: Api;

  constructor(options: { api?: Api } = {}) {
    this.api = options.api;
  }

  /** Loads `@opentelemetry/api` if installed (a missing package means no tracing, no error). */
  static async load(): Promise<Telemetry> {
    try {
      const loaded = (await import('@opentelemetry/api')) as Api & { default?: Api };
      return new Telemetry({ api: loaded.trace ? loaded : loaded.default });
    } catch {
      return new Telemetry();
    }
  }

  startSpan(options: StartSpanOptions): TelemetrySpan {
    const api = this.api;
    if (!api) return noopSpan;
    const parent = options.parent instanceof OtelSpan ? options.parent.span : undefined;
    const context = parent ? api.trace.setSpan(api.context.active(), parent) : api.context.active();
    const span = api.trace.getTracer(TRACER_NAME).startSpan(
      options.name,
      {
        kind: options.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL,
        attributes: defined(options.attributes ?? {}),
        startTime: options.startTime,
      },
      context,
    );
    return new OtelSpan(api, span);
  }
}

/** `provider:model` split into the `gen_ai.provider.name` and `gen_ai.request.model` values. */
export function modelAttributes(modelId: string): SpanAttributes {
  const colon = modelId.indexOf(':');
  return colon === -1
    ? { 'gen_ai.request.model': modelId }
    : {
        'gen_ai.provider.name': modelId.slice(0, colon),
        'gen_ai.request.model': modelId.slice(colon + 1),
      };
}
