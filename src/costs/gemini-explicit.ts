/**
 * Whether a Gemini explicit cache of a request's stable prefix pays
 * (docs/cost.md#gemini-explicit-caching). Pure. Google bills an explicit cache three ways
 * (ai.google.dev/gemini-api/docs/caching, ai.google.dev/gemini-api/docs/pricing): the tokens
 * that create it at the standard input price, each request's cached tokens at the cache price,
 * and storage per million tokens per hour of its TTL. Against sending the prefix uncached on
 * each of `expectedReads` requests, it pays when
 *
 *   reads x prefix x input  >  prefix x input + reads x prefix x cacheRead + prefix x storage x TTL
 *
 * (the prefix's size cancels out, except that under the model's minimum nothing is cached).
 */
import { rateAt } from './session-cost.js';
import type { TokenPrices } from './types.js';

/**
 * Gemini API storage prices in USD per million tokens per hour (the pricing page's "Context
 * caching ... storage price"): $4.50 for the Pro models, $1.00 for Flash and Flash-Lite. The
 * price catalog does not carry them. `undefined` for a model not listed here: pass
 * `storagePerMTokHour` yourself.
 */
export function geminiStoragePerMTokHour(model: string): number | undefined {
  const name = model.toLowerCase().replace(/^models\//, '');
  if (!name.startsWith('gemini-')) return undefined;
  if (/-pro\b/.test(name)) return 4.5;
  if (/-flash\b/.test(name)) return 1;
  return undefined;
}

export type ExplicitCacheReason = 'pays' | 'below_minimum' | 'too_few_reads';

export interface ExplicitCacheDecision {
  pays: boolean;
  reason: ExplicitCacheReason;
  /** USD of sending the prefix uncached on each expected request. */
  uncachedUsd: number;
  /** USD with the cache: its creation, each request's cache read, its storage for the TTL. */
  cachedUsd: number;
}

export interface ExplicitCacheDecisionOptions {
  prices: TokenPrices;
  /** Tokens of the stable prefix (system instruction, tools, summary). */
  prefixTokens: number;
  /** Requests expected to send this prefix while the cache would live (this one included). */
  expectedReads: number;
  ttlSeconds: number;
  storagePerMTokHour: number;
  /** The model's minimum cacheable prompt (`geminiMinimumTokens`). */
  minimumTokens: number;
}

export function explicitCacheDecision(
  options: ExplicitCacheDecisionOptions,
): ExplicitCacheDecision {
  const { prices, prefixTokens, expectedReads } = options;
  // Priced at the prefix's own tier: a conservative figure, since requests are larger.
  const input = rateAt(prices.input, prefixTokens);
  const read = rateAt(prices.cacheRead ?? prices.input, prefixTokens);
  const storage = (options.storagePerMTokHour * options.ttlSeconds) / 3600;
  const uncachedUsd = (expectedReads * prefixTokens * input) / 1e6;
  const cachedUsd = (prefixTokens * (input + expectedReads * read + storage)) / 1e6;
  if (prefixTokens < options.minimumTokens) {
    return { pays: false, reason: 'below_minimum', uncachedUsd, cachedUsd };
  }
  const pays = cachedUsd < uncachedUsd;
  return { pays, reason: pays ? 'pays' : 'too_few_reads', uncachedUsd, cachedUsd };
}
