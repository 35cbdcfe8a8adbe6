/**
 * The cache policy of a `provider:model`, with the model's documented minimum cacheable prompt
 * (docs/cost.md#the-cache-model-per-provider). A provider without a model here gets `none`: no
 * cache discount is assumed.
 */
import type { PromptCachePolicy } from './prompt-cache.js';

/** Anthropic's minimum cacheable prompt per model family (docs: prompt caching, limitations). */
export function anthropicMinimumTokens(model: string): number {
  const name = model.toLowerCase();
  if (/claude-(?:haiku-4-5|opus-4-[56])/.test(name)) return 4096;
  if (/claude-3(?:-5)?-haiku/.test(name)) return 2048;
  return 1024;
}

/** Gemini's minimum for implicit caching (ai.google.dev/gemini-api/docs/caching). */
export function geminiMinimumTokens(model: string): number {
  return /pro/.test(model.toLowerCase()) ? 4096 : 1024;
}

export function defaultCachePolicy(options: {
  provider: string;
  model: string;
  /** Gemini only: price an explicit cache of the stable prefix instead of implicit caching. */
  geminiExplicit?: boolean;
  /** Anthropic only. */
  anthropicTtl?: '5m' | '1h';
}): PromptCachePolicy {
  const { provider, model } = options;
  switch (provider) {
    case 'anthropic':
      return {
        provider: 'anthropic',
        minimumTokens: anthropicMinimumTokens(model),
        ...(options.anthropicTtl ? { ttl: options.anthropicTtl } : {}),
      };
    case 'openai':
      return { provider: 'openai' };
    case 'google':
      return {
        provider: 'google',
        mode: options.geminiExplicit ? 'explicit' : 'implicit',
        minimumTokens: geminiMinimumTokens(model),
      };
    default:
      return { provider: 'none' };
  }
}
