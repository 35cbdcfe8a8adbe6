/**
 * `orrery-runtime/model-kit`: for authors of a `Model` of their own: how orrery classifies a
 * provider's error (overflow, rate limit, retry-after) and turns a request into an AI SDK prompt;
 * the Gemini explicit cache's options and error (docs/cost.md#gemini-explicit-caching).
 */

export {
  type ClassifyModelErrorOptions,
  classifyModelError,
  retryAfterMs,
} from '../models/classify-error.js';
export { GeminiCacheError } from '../models/gemini-cached-content.js';
export type {
  GeminiCacheLogger,
  GeminiExplicitCacheOptions,
  GeminiExplicitCacheSettings,
} from '../models/gemini-explicit-cache.js';
export {
  type ToAiSdkPromptOptions,
  toAiSdkPrompt,
  toAiSdkTools,
} from '../models/to-ai-sdk-prompt.js';
