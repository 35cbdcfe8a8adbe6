/**
 * orrery's minimal model interface. The AI SDK adapter (`fromAiSdk`) implements it for any AI SDK
 * language model; tests use the scripted model from `orrery/testing`.
 */
import type { Content, UsageMetadata } from '../events/types.js';

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
  signal?: AbortSignal;
}

export interface ModelResponse {
  /** Role `model`. May be empty (no parts) when the provider returned nothing. */
  content: Content;
  usageMetadata?: UsageMetadata;
  /** e.g. `stop`, `tool-calls`, `length`, `content-filter`, `error`. */
  finishReason?: string;
}

export interface Model {
  /** Stable id such as `google:gemini-2.5-flash`; recorded as a compaction's `summarizer`. */
  readonly modelId: string;
  /** The provider's context window in tokens, when known. */
  readonly contextWindowTokens?: number;
  generate(request: ModelRequest): Promise<ModelResponse>;
}
