/**
 * `orrery-runtime/model-kit`: for authors of a `Model` of their own: how orrery classifies a
 * provider's error (overflow, rate limit, retry-after) and turns a request into an AI SDK prompt.
 */

export {
  type ClassifyModelErrorOptions,
  classifyModelError,
  retryAfterMs,
} from '../models/classify-error.js';
export {
  type ToAiSdkPromptOptions,
  toAiSdkPrompt,
  toAiSdkTools,
} from '../models/to-ai-sdk-prompt.js';
