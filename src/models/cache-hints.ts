/**
 * Prompt-cache hints where providers take them (docs/cost.md#cache-hints):
 *
 * - Anthropic caches only what a `cache_control` breakpoint marks. Breakpoints go after the
 *   stable prefix (on the system message, so the tools and instructions before it are cached;
 *   on the summary, the first user content after a compaction) and on the last message (the
 *   moving tail, so the next request reads everything this one sent). Three of the four allowed.
 * - OpenAI caches prefixes automatically; `prompt_cache_key` (one per session) keeps a session's
 *   requests on the machines that hold its prefix.
 * - Gemini caches implicitly; an explicit cache is a separate resource, not a request hint.
 *
 * The prompt's text is never changed, so the prefix stays byte-stable between compactions.
 */
import type { LanguageModelV3Prompt, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { SUMMARY_PREFIX } from '../compaction/view.js';

type ProviderFamily = 'anthropic' | 'openai' | 'other';

/** `anthropic.messages` -> `anthropic`; AI SDK provider ids start with the provider's name. */
export function providerFamily(provider: string): ProviderFamily {
  const name = provider.split('.')[0] ?? provider;
  if (name === 'anthropic') return 'anthropic';
  if (name === 'openai') return 'openai';
  return 'other';
}

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** The prompt with Anthropic breakpoints on the system message, the summary and the last message. */
export function withCacheBreakpoints(prompt: LanguageModelV3Prompt): LanguageModelV3Prompt {
  let systemIndex = -1;
  prompt.forEach((message, index) => {
    if (message.role === 'system') systemIndex = index;
  });
  const marked = new Set([systemIndex, prompt.length - 1].filter((at) => at >= 0));
  let summaryMarked = false;
  return prompt.map((message, index) => {
    let next = message;
    // The summary may share its message with the next user content: the breakpoint goes on
    // its own part, so it ends exactly where the stable prefix ends.
    if (!summaryMarked && message.role === 'user') {
      const at = message.content.findIndex(
        (part) => part.type === 'text' && part.text.startsWith(SUMMARY_PREFIX),
      );
      if (at >= 0) {
        summaryMarked = true;
        next = {
          ...message,
          content: message.content.map((part, partIndex) =>
            partIndex === at
              ? { ...part, providerOptions: mergeOptions(part.providerOptions, EPHEMERAL) }
              : part,
          ),
        };
      }
    }
    if (!marked.has(index)) return next;
    return {
      ...next,
      providerOptions: mergeOptions(next.providerOptions, EPHEMERAL),
    } as typeof message;
  });
}

/** Request-level options: OpenAI's `promptCacheKey` when a key is given. */
export function cacheKeyOptions(
  family: ProviderFamily,
  cacheKey: string | undefined,
): SharedV3ProviderOptions | undefined {
  if (family !== 'openai' || cacheKey === undefined) return undefined;
  return { openai: { promptCacheKey: cacheKey } };
}

/** Two provider-option objects merged one provider deep (the caller's values win). */
export function mergeOptions(
  base: SharedV3ProviderOptions | undefined,
  extra: SharedV3ProviderOptions | undefined,
): SharedV3ProviderOptions | undefined {
  if (!extra) return base;
  if (!base) return extra;
  const merged: SharedV3ProviderOptions = { ...extra };
  for (const [provider, options] of Object.entries(base)) {
    merged[provider] = { ...(extra[provider] ?? {}), ...options };
  }
  return merged;
}
