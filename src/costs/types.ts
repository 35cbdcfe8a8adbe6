/**
 * Shapes of the cost model (docs/cost.md): prices in USD per million tokens, the requests of a
 * session as the cache sees them, and what each costs.
 */

/**
 * A price in USD per million tokens: flat, or tiered by the request's prompt size (a request
 * whose prompt is over a tier's `start` is priced whole at that tier, as Anthropic and Google
 * bill long context and as `@pydantic/genai-prices` computes it).
 */
export type PriceRate =
  | number
  | { base: number; tiers: readonly { start: number; price: number }[] };

export interface TokenPrices {
  input: PriceRate;
  output: PriceRate;
  /** A cached prompt token read. Absent: the model has no cache discount (read at `input`). */
  cacheRead?: PriceRate;
  /** A prompt token written to the cache (Anthropic's 5-minute write). Absent: `input`. */
  cacheWrite?: PriceRate;
  /** Anthropic's 1-hour write. Absent: `cacheWrite`. */
  cacheWrite1h?: PriceRate;
}

/** One model request of a session, in order, as far as the prompt cache is concerned. */
export interface CacheRequest {
  /** Every prompt token of the request (instructions, tools, summary, contents). */
  inputTokens: number;
  outputTokens: number;
  /**
   * Leading tokens identical, byte for byte, to the start of the previous request: the whole
   * previous request when the session only grew, the instructions and tools after a compaction
   * rewrote what followed them. 0 for the first request.
   */
  sharedPrefixTokens: number;
  /**
   * Prefix lengths where the request carries a cache hint (Anthropic `cache_control`
   * breakpoints, at most 4), e.g. `[instructions + tools + summary, inputTokens]`. Providers that
   * cache automatically ignore it; Gemini's explicit cache holds the first.
   */
  breakpoints?: readonly number[];
  /** Seconds since the previous request; absent: within every TTL. */
  secondsSincePrevious?: number;
}

/** How one request's prompt was billed. */
export interface RequestCost {
  /** Every prompt token (= uncached + cache reads + cache writes). */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  /** Storage billed for an explicit cache (Gemini), USD. */
  storageUsd: number;
  usd: number;
}

/** Sums over a session's requests. */
export type CostTotals = RequestCost;
