export type { FromAiSdkOptions } from './ai-sdk-model.js';
export { fromAiSdk } from './ai-sdk-model.js';
export type { ClassifyModelErrorOptions } from './classify-error.js';
export { classifyModelError, looksLikeContextOverflow, retryAfterMs } from './classify-error.js';
export { knownContextWindow, knownContextWindowTokens } from './context-windows.js';
export * from './errors.js';
export { fromAiSdkResult, toUsageMetadata } from './from-ai-sdk-result.js';
export { GeminiCacheError } from './gemini-cached-content.js';
export type {
  GeminiCacheLogger,
  GeminiExplicitCacheOptions,
  GeminiExplicitCacheSettings,
} from './gemini-explicit-cache.js';
export { lookupModelPrice, type ModelPrice } from './price-catalog.js';
export type { KnownProvider, ResolveModelOptions } from './resolve-model.js';
export { knownProviders, parseModelId, resolveModel } from './resolve-model.js';
export type { SignatureFamily, ToAiSdkPromptOptions } from './to-ai-sdk-prompt.js';
export { signatureFamilyOf, toAiSdkPrompt, toAiSdkTools } from './to-ai-sdk-prompt.js';
export type * from './types.js';
export { withContextWindow } from './with-context-window.js';
