/**
 * Dollars for a session's requests: the cache split of each (`simulatePromptCache`) priced at
 * the model's rates (docs/cost.md#how-a-request-is-priced).
 */
import { type PromptCachePolicy, simulatePromptCache } from './prompt-cache.js';
import type { CacheRequest, CostTotals, PriceRate, RequestCost, TokenPrices } from './types.js';

/** The rate in USD per million tokens that applies to a request of `promptTokens`. */
export function rateAt(rate: PriceRate, promptTokens: number): number {
  if (typeof rate === 'number') return rate;
  let price = rate.base;
  for (const tier of rate.tiers) if (promptTokens > tier.start) price = tier.price;
  return price;
}

export interface SessionCostOptions {
  prices: TokenPrices;
  policy: PromptCachePolicy;
  requests: readonly CacheRequest[];
  /** Gemini explicit caches: USD per million tokens per hour. Absent: storage is not priced. */
  storagePerMTokHour?: number;
}

/** Each request's cost, in order. */
export function requestCosts(options: SessionCostOptions): RequestCost[] {
  const { prices, requests } = options;
  const splits = simulatePromptCache({ policy: options.policy, requests });
  return requests.map((request, index) => {
    const split = splits[index];
    const read = split?.cacheReadTokens ?? 0;
    const write = split?.cacheWriteTokens ?? 0;
    const prompt = request.inputTokens;
    const input = rateAt(prices.input, prompt);
    const writeRate = split?.writeIsOneHour
      ? (prices.cacheWrite1h ?? prices.cacheWrite ?? prices.input)
      : (prices.cacheWrite ?? prices.input);
    const storageUsd = ((split?.storageTokenHours ?? 0) * (options.storagePerMTokHour ?? 0)) / 1e6;
    const usd =
      ((prompt - read - write) * input +
        read * rateAt(prices.cacheRead ?? prices.input, prompt) +
        write * rateAt(writeRate, prompt) +
        request.outputTokens * rateAt(prices.output, prompt)) /
        1e6 +
      storageUsd;
    return {
      inputTokens: prompt,
      cacheReadTokens: read,
      cacheWriteTokens: write,
      outputTokens: request.outputTokens,
      storageUsd,
      usd,
    };
  });
}

/** The sum of `requestCosts`. */
export function sessionCost(options: SessionCostOptions): CostTotals {
  return sumCosts(requestCosts(options));
}

export function sumCosts(costs: readonly RequestCost[]): CostTotals {
  const total: CostTotals = {
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    storageUsd: 0,
    usd: 0,
  };
  for (const cost of costs) {
    total.inputTokens += cost.inputTokens;
    total.cacheReadTokens += cost.cacheReadTokens;
    total.cacheWriteTokens += cost.cacheWriteTokens;
    total.outputTokens += cost.outputTokens;
    total.storageUsd += cost.storageUsd;
    total.usd += cost.usd;
  }
  return total;
}
