import { describe, expect, it } from 'vitest';
import { CostModelError } from './errors.js';
import { openAiCached, simulatePromptCache } from './prompt-cache.js';
import { requestCosts, sessionCost } from './session-cost.js';
import type { CacheRequest, TokenPrices } from './types.js';

// Catalog prices of claude-sonnet-4-5 (@pydantic/genai-prices 0.1.8), USD per million tokens.
const sonnet: TokenPrices = {
  input: { base: 3, tiers: [{ start: 200_000, price: 6 }] },
  cacheWrite: { base: 3.75, tiers: [{ start: 200_000, price: 7.5 }] },
  cacheRead: { base: 0.3, tiers: [{ start: 200_000, price: 0.6 }] },
  cacheWrite1h: { base: 6, tiers: [{ start: 200_000, price: 12 }] },
  output: { base: 15, tiers: [{ start: 200_000, price: 22.5 }] },
};

describe('Anthropic breakpoints', () => {
  // The documentation's worked example: a system prompt holding a whole book with
  // `cache_control` on it, then a short user message, sent twice. Reported usage:
  //   1st {"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"input_tokens":21}
  //   2nd {"cache_creation_input_tokens":0,"cache_read_input_tokens":188086,"input_tokens":21}
  const book: CacheRequest[] = [
    { inputTokens: 188_107, outputTokens: 393, sharedPrefixTokens: 0, breakpoints: [188_086] },
    {
      inputTokens: 188_107,
      outputTokens: 393,
      sharedPrefixTokens: 188_086,
      breakpoints: [188_086],
    },
  ];

  it('writes the book once, then reads it (the docs example)', () => {
    const splits = simulatePromptCache({
      policy: { provider: 'anthropic', minimumTokens: 1024 },
      requests: book,
    });
    expect(splits.map((split) => [split.cacheWriteTokens, split.cacheReadTokens])).toEqual([
      [188_086, 0],
      [0, 188_086],
    ]);
  });

  it('prices a write at 1.25x and a read at 0.1x input', () => {
    const [first, second] = requestCosts({
      prices: sonnet,
      policy: { provider: 'anthropic', minimumTokens: 1024 },
      requests: book,
    });
    // 188,086 x $3.75 + 21 x $3 + 393 x $15, per million.
    expect(first?.usd).toBeCloseTo((188_086 * 3.75 + 21 * 3 + 393 * 15) / 1e6, 10);
    expect(second?.usd).toBeCloseTo((188_086 * 0.3 + 21 * 3 + 393 * 15) / 1e6, 10);
  });

  it('caches nothing below the model minimum', () => {
    const [split] = simulatePromptCache({
      policy: { provider: 'anthropic', minimumTokens: 1024 },
      requests: [{ inputTokens: 900, outputTokens: 1, sharedPrefixTokens: 0, breakpoints: [900] }],
    });
    expect(split?.cacheWriteTokens).toBe(0);
  });

  it('a moving tail breakpoint reads the previous request and writes only what was added', () => {
    const splits = simulatePromptCache({
      policy: { provider: 'anthropic', minimumTokens: 1024 },
      requests: [
        { inputTokens: 5000, outputTokens: 1, sharedPrefixTokens: 0, breakpoints: [2000, 5000] },
        { inputTokens: 6000, outputTokens: 1, sharedPrefixTokens: 5000, breakpoints: [2000, 6000] },
        // A compaction rewrote everything after the instructions and tools (2,000 tokens).
        { inputTokens: 3000, outputTokens: 1, sharedPrefixTokens: 2000, breakpoints: [2000, 3000] },
      ],
    });
    expect(splits.map((split) => [split.cacheReadTokens, split.cacheWriteTokens])).toEqual([
      [0, 5000],
      [5000, 1000],
      [2000, 1000],
    ]);
  });

  it('an entry unused for longer than its TTL is gone; a 1-hour TTL keeps it', () => {
    const requests: CacheRequest[] = [
      { inputTokens: 4000, outputTokens: 1, sharedPrefixTokens: 0, breakpoints: [4000] },
      {
        inputTokens: 4500,
        outputTokens: 1,
        sharedPrefixTokens: 4000,
        breakpoints: [4500],
        secondsSincePrevious: 301,
      },
    ];
    const fiveMinutes = simulatePromptCache({
      policy: { provider: 'anthropic', minimumTokens: 1024 },
      requests,
    });
    expect(fiveMinutes[1]?.cacheReadTokens).toBe(0);
    const oneHour = simulatePromptCache({
      policy: { provider: 'anthropic', minimumTokens: 1024, ttl: '1h' },
      requests,
    });
    expect(oneHour[1]).toMatchObject({ cacheReadTokens: 4000, writeIsOneHour: true });
    const costs = requestCosts({
      prices: sonnet,
      policy: { provider: 'anthropic', minimumTokens: 1024, ttl: '1h' },
      requests,
    });
    // 1-hour writes: 2x input.
    expect(costs[0]?.usd).toBeCloseTo((4000 * 6 + 15) / 1e6, 10);
  });
});

describe('OpenAI automatic prefix caching', () => {
  it('caches 1024 tokens, then whole 128-token increments (1024, 1152, 1280, ...)', () => {
    expect([1023, 1024, 1151, 1152, 1279, 1280, 1408].map(openAiCached)).toEqual([
      0, 1024, 1024, 1152, 1152, 1280, 1408,
    ]);
  });

  it('a repeated 2,000-token system prompt is 1,920 cached tokens, writes are free', () => {
    // The usual example: a 2,000-token system prompt and a short user message, three times.
    const requests: CacheRequest[] = [
      { inputTokens: 2050, outputTokens: 10, sharedPrefixTokens: 0 },
      { inputTokens: 2080, outputTokens: 10, sharedPrefixTokens: 2000 },
      { inputTokens: 2120, outputTokens: 10, sharedPrefixTokens: 2000 },
    ];
    const splits = simulatePromptCache({ policy: { provider: 'openai' }, requests });
    expect(splits.map((split) => [split.cacheReadTokens, split.cacheWriteTokens])).toEqual([
      [0, 0],
      [1920, 0],
      [1920, 0],
    ]);
  });

  it('prices reads at the catalog rate (gpt-4o: half of input)', () => {
    const total = sessionCost({
      prices: { input: 2.5, cacheRead: 1.25, output: 10 },
      policy: { provider: 'openai' },
      requests: [
        { inputTokens: 3000, outputTokens: 0, sharedPrefixTokens: 0 },
        { inputTokens: 3000, outputTokens: 0, sharedPrefixTokens: 3000 },
      ],
    });
    // 2nd: 2,944 cached (1024 + 15 x 128), 56 uncached.
    expect(total.cacheReadTokens).toBe(2944);
    expect(total.usd).toBeCloseTo((3000 * 2.5 + 2944 * 1.25 + 56 * 2.5) / 1e6, 10);
  });
});

describe('Gemini', () => {
  it('implicit: a prefix under the model minimum is no hit (2.5 Pro: 4096)', () => {
    const requests: CacheRequest[] = [
      { inputTokens: 5000, outputTokens: 1, sharedPrefixTokens: 0 },
      { inputTokens: 5200, outputTokens: 1, sharedPrefixTokens: 3000 },
      { inputTokens: 5400, outputTokens: 1, sharedPrefixTokens: 5200 },
    ];
    const pro = simulatePromptCache({
      policy: { provider: 'google', mode: 'implicit', minimumTokens: 4096 },
      requests,
    });
    expect(pro.map((split) => split.cacheReadTokens)).toEqual([0, 0, 5200]);
    const flash = simulatePromptCache({
      policy: { provider: 'google', mode: 'implicit', minimumTokens: 1024 },
      requests,
    });
    expect(flash.map((split) => split.cacheReadTokens)).toEqual([0, 3000, 5200]);
  });

  it('explicit: the stable prefix is created once, read after, and storage billed for its TTL', () => {
    const requests: CacheRequest[] = [
      { inputTokens: 12_000, outputTokens: 1, sharedPrefixTokens: 0, breakpoints: [10_000] },
      { inputTokens: 13_000, outputTokens: 1, sharedPrefixTokens: 12_000, breakpoints: [10_000] },
    ];
    const prices: TokenPrices = { input: 1.25, cacheRead: 0.125, output: 10 };
    const costs = requestCosts({
      prices,
      policy: { provider: 'google', mode: 'explicit', minimumTokens: 4096 },
      requests,
      storagePerMTokHour: 4.5,
    });
    expect(costs.map((cost) => [cost.cacheWriteTokens, cost.cacheReadTokens])).toEqual([
      [10_000, 0],
      [0, 10_000],
    ]);
    // Creation billed as input, one hour of storage for 10,000 tokens at $4.50 / MTok-hour.
    expect(costs[0]?.storageUsd).toBeCloseTo(0.045, 10);
    expect(costs[1]?.usd).toBeCloseTo((10_000 * 0.125 + 3000 * 1.25 + 10) / 1e6, 10);
  });
});

describe('tiers and bad input', () => {
  it('a prompt over a tier start is priced whole at the tier', () => {
    const [cost] = requestCosts({
      prices: sonnet,
      policy: { provider: 'none' },
      requests: [{ inputTokens: 200_001, outputTokens: 0, sharedPrefixTokens: 0 }],
    });
    expect(cost?.usd).toBeCloseTo((200_001 * 6) / 1e6, 10);
  });

  it('names the bad field', () => {
    expect(() =>
      simulatePromptCache({
        policy: { provider: 'openai' },
        requests: [{ inputTokens: 10, outputTokens: 0, sharedPrefixTokens: 11 }],
      }),
    ).toThrow(
      expect.objectContaining({ field: 'requests[0].sharedPrefixTokens', value: 11 }) as Error,
    );
    let caught: unknown;
    try {
      simulatePromptCache({
        policy: { provider: 'openai' },
        requests: [{ inputTokens: -1, outputTokens: 0, sharedPrefixTokens: 0 }],
      });
    } catch (error) {
      caught = error;
    }
    expect(CostModelError.isInstance(caught)).toBe(true);
  });
});
