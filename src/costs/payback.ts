/**
 * When a compaction pays for itself under prompt caching (docs/cost.md#payback). Compared with
 * not compacting, a compaction costs once: its summarizer call, plus writing the new prefix
 * (summary and tail, at the cache-write price) where the next request would have read the whole
 * old one (at the cache-read price). It saves on every later request: the tokens it removed are
 * no longer read. `paybackCalls` is how many later requests that takes.
 */
import { rateAt } from './session-cost.js';
import type { TokenPrices } from './types.js';

export interface PaybackOptions {
  prices: TokenPrices;
  /** Whether the provider caches the prefix (false: every prompt token is billed as input). */
  cached: boolean;
  /** Anthropic bills cache writes (1.25x); automatic caches write at the input price. */
  billsWrites: boolean;
  /** Request tokens before and after the compaction, and the stable instructions + tools. */
  tokensBefore: number;
  tokensAfter: number;
  overheadTokens: number;
  summarizerUsd: number;
}

export interface Payback {
  /** USD the compaction costs once, against not compacting. */
  oneTimeUsd: number;
  /** USD each later request saves. */
  savedPerCallUsd: number;
  /** Later requests needed to repay `oneTimeUsd`; `Infinity` when nothing is saved. */
  paybackCalls: number;
}

export function compactionPayback(options: PaybackOptions): Payback {
  const { prices, tokensBefore: before, tokensAfter: after } = options;
  const overhead = Math.min(options.overheadTokens, after);
  const input = rateAt(prices.input, before);
  const read = options.cached ? rateAt(prices.cacheRead ?? prices.input, before) : input;
  const write =
    options.cached && options.billsWrites
      ? rateAt(prices.cacheWrite ?? prices.input, before)
      : input;
  // The next request: the overhead read and the new prefix written, against the old one read.
  const oneTimeUsd =
    options.summarizerUsd + ((after - overhead) * write + overhead * read - before * read) / 1e6;
  const savedPerCallUsd = (Math.max(0, before - after) * read) / 1e6;
  const paybackCalls =
    oneTimeUsd <= 0 ? 0 : savedPerCallUsd > 0 ? Math.ceil(oneTimeUsd / savedPerCallUsd) : Infinity;
  return { oneTimeUsd, savedPerCallUsd, paybackCalls };
}
