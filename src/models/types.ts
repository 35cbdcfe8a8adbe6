/**
 * orrery's minimal model interface. The AI SDK adapter (`fromAiSdk`) implements it for any AI SDK
 * language model; tests use the scripted model from `orrery/testing`.
 */
import type { Content, FunctionCall, UsageMetadata } from '../events/types.js';

export interface FunctionDeclaration {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  contents: Content[];
  systemInstruction?: string;
  tools?: FunctionDeclaration[];
  temperature?: number;
  maxOutputTokens?: number;
  /**
   * A stable key per session for providers that route prompt caching by it (OpenAI
   * `prompt_cache_key`); also what turns Anthropic breakpoints on, since only a session's
   * requests repeat a prefix. The Runner sets the session id. docs/cost.md#cache-hints
   */
  cacheKey?: string;
  signal?: AbortSignal;
}

export interface ModelResponse {
  /** Role `model`. May be empty (no parts) when the provider returned nothing. */
  content: Content;
  usageMetadata?: UsageMetadata;
  /** e.g. `stop`, `tool-calls`, `length`, `content-filter`, `error`. */
  finishReason?: string;
  /** The provider's id of this response (`gen_ai.response.id` on the `chat` span). */
  responseId?: string;
  /** The model that answered, as the provider names it (`gen_ai.response.model`). */
  responseModel?: string;
  /**
   * Prompt tokens the provider wrote to its cache (Anthropic's `cache_creation_input_tokens`, the
   * AI SDK's `inputTokens.cacheWrite`): priced at the cache-write rate (docs/cost.md#live-spend).
   * Not in `usageMetadata`, whose shape is ADK's.
   */
  cacheWriteTokenCount?: number;
}

/**
 * One part of a streamed answer, AI SDK style: deltas as they arrive, then exactly one `finish`
 * holding the whole `ModelResponse` (what `generate` would have returned) as the last part.
 */
export type ModelStreamPart =
  /** A piece of the answer's text. */
  | { type: 'text-delta'; text: string }
  /** A piece of the model's visible reasoning (a `thought: true` part in the response). */
  | { type: 'reasoning-delta'; text: string }
  /** A complete function call (also in the final response). */
  | { type: 'tool-call'; functionCall: FunctionCall }
  /** The last part: the complete response, usage and finish reason included. */
  | { type: 'finish'; response: ModelResponse };

export interface ModelStreamOptions {
  /** Ends the stream: the iterator throws the signal's reason. */
  signal?: AbortSignal;
}

export interface Model {
  /** Stable id such as `google:gemini-2.5-flash`; recorded as a compaction's `summarizer`. */
  readonly modelId: string;
  /** The provider's context window in tokens, when known. */
  readonly contextWindowTokens?: number;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * The same call, streamed: the parts as they arrive, ending with one `finish` part. Errors are
   * classified like `generate`'s (`ModelError`), whether the call fails before its first part
   * or mid-stream. Optional: a model without it is called with `generate`.
   */
  stream?(request: ModelRequest, options?: ModelStreamOptions): AsyncIterable<ModelStreamPart>;
}
