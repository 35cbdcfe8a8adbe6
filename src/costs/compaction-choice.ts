/**
 * Cost-aware compaction (docs/cost.md#cost-aware-compaction): when and how far to compact by
 * the expected spend over the next calls, under the provider's prompt cache, never above the
 * threshold. Pure: the caller measures the session, this projects each choice.
 *
 * A choice is projected call by call, each call's cost weighted by the chance the session lasts
 * that long: after `elapsedCalls` calls, the next `k` happen with probability
 * `elapsed / (elapsed + k)` (the scale-free estimate of a lifetime from its age alone: the median
 * remaining length is the length so far), up to `horizonCalls`. Each request reads the prefix it
 * shares with the previous one at the cache-read price and writes (or sends uncached) the rest;
 * the session grows `growthPerCall` tokens a call; a request at the threshold is compacted at
 * the chosen depth (the summarizer reads the summarized range and writes the summary, uncached,
 * or, when it re-sends the agent's request (`summaryReusesPrefix`), reads that request's cached
 * prefix at the cache-read price and writes the rest, as the agent's next request would);
 * after a compaction only the instructions and tools are shared. At or over the threshold the
 * choice is only how deep (the threshold always holds); under it, also whether compacting now is
 * cheaper than waiting for the threshold, e.g. when the cache went cold and the next request
 * rewrites the whole prefix anyway.
 */
import { rateAt } from './session-cost.js';
import type { TokenPrices } from './types.js';

/**
 * How the provider bills the prefix: `written` (Anthropic with hints: reads 0.1x, writes 1.25x),
 * `automatic` (OpenAI, Gemini implicit: reads discounted, the rest at the input price), `none`.
 */
export type CacheBilling = 'written' | 'automatic' | 'none';

export interface CompactionChoiceOptions {
  prices: TokenPrices;
  summarizerPrices: TokenPrices;
  cache: CacheBilling;
  /** The next request's estimated tokens. */
  requestTokens: number;
  thresholdTokens: number;
  /** Instructions and tools: what a request after a compaction still shares with the one before. */
  overheadTokens: number;
  /** Expected tokens of a summary (the current summary's size when there is one). */
  summaryTokens: number;
  /**
   * Tokens each candidate depth keeps verbatim (the retained tail), the configured depth first,
   * deeper ones after. A tail is never larger than what the request holds past the summary.
   */
  retainedTokens: readonly number[];
  /** Tokens the request grows per call (e.g. the growth since the checkpoint over its calls). */
  growthPerCall: number;
  /** Model calls the session has made so far (at least 1): sets the chance it goes on. */
  elapsedCalls: number;
  /** Calls the projection covers, this one included. Default 10 x `elapsedCalls` (at least 10). */
  horizonCalls?: number;
  /** The cache expired since the previous request: the next request writes its whole prefix. */
  cacheCold?: boolean;
  /** The summarizer's own instructions, read on each call. Default 500. */
  summarizerPromptTokens?: number;
  /**
   * The summary is asked on the agent's model by re-sending the agent's request with the
   * summarize instruction after it (docs/cost.md#summaries-that-reuse-the-agents-cache): the
   * request's prefix is read from the cache, the rest and the instruction written, at `prices`.
   * Default false: a request of its own at `summarizerPrices`, uncached.
   */
  summaryReusesPrefix?: boolean;
  /** Compacting early must save at least this share of waiting's cost. Default 0.01. */
  minSavingShare?: number;
}

export type CompactionChoiceReason =
  /** At or over the threshold: compacting is required, the depth is the cheapest. */
  | 'threshold'
  /** Under it, compacting now costs less than waiting (the cache is warm). */
  | 'cheaper_now'
  /** Under it with a cold cache: the prefix is rewritten anyway, so compacting now is cheaper. */
  | 'cold_cache'
  /** Under it, waiting for the threshold costs less. */
  | 'wait';

export interface CompactionChoice {
  action: 'compact' | 'wait';
  reason: CompactionChoiceReason;
  /** Index in `retainedTokens` of the depth chosen (for `wait`: of the later compactions). */
  depth: number;
  /** Tokens the chosen depth keeps verbatim. */
  retainedTokens: number;
  /** Expected USD of the choice over the horizon. */
  expectedUsd: number;
  /** Projected USD at the configured depth, compacting only at the threshold. */
  thresholdOnlyUsd: number;
}

interface Projection {
  compactNow: boolean;
  depth: number;
}

/** Expected USD of one schedule over the horizon (output tokens are the same either way). */
export function projectCompactionUsd(options: CompactionChoiceOptions & Projection): number {
  const { prices, cache, thresholdTokens: threshold, overheadTokens: overhead } = options;
  const retained = options.retainedTokens[options.depth] ?? 0;
  const promptTokens = options.summarizerPromptTokens ?? 500;
  const elapsed = Math.max(1, options.elapsedCalls);
  const calls = Math.max(1, Math.floor(options.horizonCalls ?? Math.max(10, 10 * elapsed)));
  const growth = Math.max(0, options.growthPerCall);
  let size = options.requestTokens;
  let total = 0;
  for (let call = 0; call < calls; call++) {
    if (call > 0) size += growth;
    const chance = elapsed / (elapsed + call);
    let usd = 0;
    // What this request shares with the previous one, before any compaction.
    let shared = call === 0 ? (options.cacheCold ? 0 : Math.max(0, size - growth)) : size - growth;
    if ((call === 0 && options.compactNow) || size >= threshold) {
      const kept = Math.min(retained, Math.max(0, size - overhead - options.summaryTokens));
      const after = overhead + options.summaryTokens + kept;
      if (after < size) {
        usd += summaryUsd({ ...options, size, kept, shared, promptTokens });
        size = after;
        shared = call === 0 && options.cacheCold ? 0 : Math.min(overhead, size);
      }
    }
    usd += requestUsd({ prices, cache, size, shared });
    total += chance * usd;
  }
  return total;
}

/** One summary call: standalone over the summarized range, or on the agent's cached request. */
function summaryUsd(
  options: CompactionChoiceOptions & {
    size: number;
    kept: number;
    shared: number;
    promptTokens: number;
  },
): number {
  const { size, promptTokens } = options;
  if (options.summaryReusesPrefix && options.cache !== 'none' && options.shared > 0) {
    // The whole request as the agent sent it (its shared prefix a cache read), then the instruction.
    const request = size + promptTokens;
    return (
      requestUsd({
        prices: options.prices,
        cache: options.cache,
        size: request,
        shared: options.shared,
      }) +
      (options.summaryTokens * rateAt(options.prices.output, request)) / 1e6
    );
  }
  const summarized = size - options.overheadTokens - options.kept + promptTokens;
  return (
    (summarized * rateAt(options.summarizerPrices.input, summarized) +
      options.summaryTokens * rateAt(options.summarizerPrices.output, summarized)) /
    1e6
  );
}

function requestUsd(options: {
  prices: TokenPrices;
  cache: CacheBilling;
  size: number;
  shared: number;
}): number {
  const { prices, size } = options;
  const input = rateAt(prices.input, size);
  if (options.cache === 'none') return (size * input) / 1e6;
  const read = Math.min(options.shared, size);
  const readRate = rateAt(prices.cacheRead ?? prices.input, size);
  const restRate =
    options.cache === 'written' ? rateAt(prices.cacheWrite ?? prices.input, size) : input;
  return (read * readRate + (size - read) * restRate) / 1e6;
}

/** The cheapest choice: how deep at or over the threshold; under it, also now or later. */
export function chooseCompaction(options: CompactionChoiceOptions): CompactionChoice {
  const depths = options.retainedTokens.length > 0 ? options.retainedTokens : [0];
  const at = (compactNow: boolean, depth: number) => ({
    depth,
    usd: projectCompactionUsd({ ...options, retainedTokens: depths, compactNow, depth }),
  });
  const cheapest = (compactNow: boolean) =>
    depths
      .map((_, depth) => at(compactNow, depth))
      .reduce((best, next) => (next.usd < best.usd ? next : best));
  const thresholdOnlyUsd = at(false, 0).usd;
  const choice = (
    action: CompactionChoice['action'],
    reason: CompactionChoiceReason,
    best: { depth: number; usd: number },
  ): CompactionChoice => ({
    action,
    reason,
    depth: best.depth,
    retainedTokens: depths[best.depth] ?? 0,
    expectedUsd: best.usd,
    thresholdOnlyUsd,
  });
  if (options.requestTokens >= options.thresholdTokens) {
    return choice('compact', 'threshold', cheapest(true));
  }
  const wait = cheapest(false);
  const now = cheapest(true);
  const margin = (options.minSavingShare ?? 0.01) * wait.usd;
  if (now.usd < wait.usd - margin) {
    return choice('compact', options.cacheCold ? 'cold_cache' : 'cheaper_now', now);
  }
  return choice('wait', 'wait', wait);
}
