/**
 * A thin adapter from any AI SDK language model (specification v3: the `ai@6` /
 * `@ai-sdk/provider@3` line) to orrery's `Model`. It calls `doGenerate` (or `doStream` for
 * `stream`) directly: one request, no retries and no tool execution, because the tool loop and
 * retry policy are orrery's.
 */
import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import {
  cacheKeyOptions,
  mergeOptions,
  providerFamily,
  withCacheBreakpoints,
} from './cache-hints.js';
import { classifyModelError } from './classify-error.js';
import { knownContextWindowTokens } from './context-windows.js';
import { fromAiSdkResult } from './from-ai-sdk-result.js';
import { fromAiSdkStream } from './from-ai-sdk-stream.js';
import {
  type CachedRequest,
  GeminiExplicitCache,
  type GeminiExplicitCacheSettings,
} from './gemini-explicit-cache.js';
import { signatureFamilyOf, toAiSdkPrompt, toAiSdkTools } from './to-ai-sdk-prompt.js';
import type {
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamOptions,
  ModelStreamPart,
} from './types.js';

export interface FromAiSdkOptions {
  /** orrery's id for the model; defaults to `<provider>:<model>`, e.g. `google:gemini-2.5-flash`. */
  modelId?: string;
  /** Defaults to the known window of common models (see `knownContextWindowTokens`). */
  contextWindowTokens?: number;
  /** Sent with every call, e.g. `{ google: { thinkingConfig: { includeThoughts: true } } }`. */
  providerOptions?: SharedV3ProviderOptions;
  /** Extra HTTP headers sent with every call. */
  headers?: Record<string, string | undefined>;
  /**
   * Prompt-cache hints (docs/cost.md#cache-hints): Anthropic `cache_control` breakpoints after
   * the instructions and tools, on the summary and on the last message; OpenAI
   * `promptCacheKey`, both only for requests with a `cacheKey` (the Runner's). Default true;
   * false sends neither.
   */
  cacheHints?: boolean;
  /**
   * Google models only: Gemini explicit caching of the stable prefix (system instruction, tools,
   * compaction summary) where the cost model says it pays (docs/cost.md#gemini-explicit-caching).
   * Off by default (Gemini's implicit caching already discounts a repeated prefix, without a
   * storage fee); only for requests with a `cacheKey`. Ignored for other providers.
   */
  geminiExplicitCache?: GeminiExplicitCacheSettings | false;
}

/** Wraps an AI SDK v3 language model as an orrery `Model`. */
export function fromAiSdk(model: LanguageModelV3, options: FromAiSdkOptions = {}): Model {
  return new AiSdkModel(model, options);
}

class AiSdkModel implements Model {
  readonly modelId: string;
  readonly contextWindowTokens?: number;
  private readonly model: LanguageModelV3;
  private readonly options: FromAiSdkOptions;
  private readonly geminiCache?: GeminiExplicitCache;

  constructor(model: LanguageModelV3, options: FromAiSdkOptions) {
    this.model = model;
    this.options = options;
    // The Gemini API's provider only: Vertex AI's caches are another API.
    if (options.geminiExplicitCache && model.provider === 'google.generative-ai') {
      this.geminiCache = new GeminiExplicitCache({
        model: model.modelId,
        settings: options.geminiExplicitCache,
      });
    }
    this.modelId = options.modelId ?? defaultModelId(model);
    this.contextWindowTokens =
      options.contextWindowTokens ?? knownContextWindowTokens(model.modelId);
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const signal = request.signal;
    signal?.throwIfAborted();
    try {
      const cached = await this.geminiCache?.prepare(request);
      const result = await this.withCacheFallback(request, cached, (sent, name) =>
        this.model.doGenerate(this.callOptions(sent, signal, name)),
      );
      return fromAiSdkResult(result, { modelId: this.modelId });
    } catch (error) {
      throw classifyModelError(error, { modelId: this.modelId, signal });
    }
  }

  async *stream(
    request: ModelRequest,
    options: ModelStreamOptions = {},
  ): AsyncGenerator<ModelStreamPart, void, undefined> {
    const signal = options.signal ?? request.signal;
    signal?.throwIfAborted();
    try {
      const cached = await this.geminiCache?.prepare(request);
      const { stream } = await this.withCacheFallback(request, cached, (sent, name) =>
        this.model.doStream(this.callOptions(sent, signal, name)),
      );
      yield* fromAiSdkStream(stream, { modelId: this.modelId, signal });
    } catch (error) {
      throw classifyModelError(error, { modelId: this.modelId, signal });
    }
  }

  /**
   * The call with the explicit cache, and once more without it when the API refuses the cache
   * (expired or deleted early): a cache never fails a turn.
   */
  private async withCacheFallback<Result>(
    request: ModelRequest,
    cached: CachedRequest | undefined,
    call: (sent: ModelRequest, cachedContent?: string) => PromiseLike<Result>,
  ): Promise<Result> {
    if (!cached) return call(request);
    try {
      return await call(cached.request, cached.cachedContent);
    } catch (error) {
      if (!isCacheRefusal(error) || request.cacheKey === undefined) throw error;
      this.geminiCache?.invalidate(request.cacheKey, cached.cachedContent);
      return call(request);
    }
  }

  private callOptions(
    request: ModelRequest,
    signal: AbortSignal | undefined,
    cachedContent?: string,
  ): LanguageModelV3CallOptions {
    const plain = toAiSdkPrompt({
      contents: request.contents,
      systemInstruction: request.systemInstruction,
      signatureFamily: signatureFamilyOf(this.model.provider),
    });
    // Only a session's requests repeat their prefix; a one-off call (a summarizer's) has no key
    // and would pay Anthropic's 1.25x write for nothing.
    const hints = this.options.cacheHints !== false && request.cacheKey !== undefined;
    const family = providerFamily(this.model.provider);
    const prompt = hints && family === 'anthropic' ? withCacheBreakpoints(plain) : plain;
    const providerOptions = mergeOptions(
      this.options.providerOptions,
      mergeOptions(
        hints ? cacheKeyOptions(family, request.cacheKey) : undefined,
        cachedContent === undefined ? undefined : { google: { cachedContent } },
      ),
    );
    const hasTools = request.tools !== undefined && request.tools.length > 0;
    return {
      prompt,
      ...(hasTools && {
        tools: toAiSdkTools(request.tools ?? []),
        toolChoice: { type: 'auto' },
      }),
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.maxOutputTokens !== undefined && { maxOutputTokens: request.maxOutputTokens }),
      ...(providerOptions !== undefined && { providerOptions }),
      ...(this.options.headers !== undefined && { headers: this.options.headers }),
      abortSignal: signal,
    };
  }
}

/** The Gemini API refused a request's `cachedContent` (not found, expired, no permission). */
function isCacheRefusal(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  const status = error.statusCode ?? 0;
  if (![400, 403, 404].includes(status)) return false;
  return /cached ?content|cache/i.test(`${error.message} ${error.responseBody ?? ''}`);
}

function defaultModelId(model: LanguageModelV3): string {
  // `google.generative-ai` -> `google`, `openai.responses` -> `openai`.
  const provider = model.provider.split('.')[0] || model.provider;
  return `${provider}:${model.modelId}`;
}
