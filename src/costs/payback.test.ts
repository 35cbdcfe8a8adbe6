import { describe, expect, it } from 'vitest';
import { compactionPayback } from './payback.js';

const sonnet = { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 };

describe('compactionPayback', () => {
  it('under Anthropic caching a 30k -> 10k compaction repays in about 20 calls', () => {
    const payback = compactionPayback({
      prices: sonnet,
      cached: true,
      billsWrites: true,
      tokensBefore: 30_000,
      tokensAfter: 10_000,
      overheadTokens: 2000,
      summarizerUsd: 0.09,
    });
    // Once: 0.09 + (8,000 x 3.75 + 2,000 x 0.3 - 30,000 x 0.3) / 1e6 = 0.1116.
    expect(payback.oneTimeUsd).toBeCloseTo(0.1116, 10);
    // Each later call: 20,000 tokens no longer read at $0.30 / MTok.
    expect(payback.savedPerCallUsd).toBeCloseTo(0.006, 10);
    expect(payback.paybackCalls).toBe(19);
  });

  it('without caching it repays at once: the next request alone saves more than it costs', () => {
    const payback = compactionPayback({
      prices: sonnet,
      cached: false,
      billsWrites: true,
      tokensBefore: 30_000,
      tokensAfter: 10_000,
      overheadTokens: 2000,
      summarizerUsd: 0.05,
    });
    // 0.05 + (10,000 - 30,000) x 3 / 1e6 = -0.01: cheaper from the first request.
    expect(payback.paybackCalls).toBe(0);
  });

  it('a compaction that removes nothing never repays', () => {
    const payback = compactionPayback({
      prices: sonnet,
      cached: true,
      billsWrites: true,
      tokensBefore: 10_000,
      tokensAfter: 10_000,
      overheadTokens: 2000,
      summarizerUsd: 0.01,
    });
    expect(payback.paybackCalls).toBe(Infinity);
  });
});
