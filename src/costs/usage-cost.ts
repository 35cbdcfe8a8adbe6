/**
 * Dollars of one model call from the usage its provider reported (docs/cost.md#live-spend):
 * cache reads at the cache-read price, cache writes at the cache-write price, the rest of the
 * prompt at the input price, the answer at the output price. Pure.
 */
import { rateAt } from './session-cost.js';
import type { TokenPrices } from './types.js';

export interface UsageCostOptions {
  prices: TokenPrices;
  /** Every prompt token, cache reads and writes included (the AI SDK's `inputTokens.total`). */
  inputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  outputTokens?: number;
}

export function usageUsd(options: UsageCostOptions): number {
  const { prices, inputTokens } = options;
  const read = Math.max(0, Math.min(options.cacheReadTokens ?? 0, inputTokens));
  const write = Math.max(0, Math.min(options.cacheWriteTokens ?? 0, inputTokens - read));
  const plain = inputTokens - read - write;
  return (
    (plain * rateAt(prices.input, inputTokens) +
      read * rateAt(prices.cacheRead ?? prices.input, inputTokens) +
      write * rateAt(prices.cacheWrite ?? prices.input, inputTokens) +
      (options.outputTokens ?? 0) * rateAt(prices.output, inputTokens)) /
    1e6
  );
}
