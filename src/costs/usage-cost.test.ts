import { describe, expect, it } from 'vitest';
import { usageUsd } from './usage-cost.js';

const sonnet = {
  input: { base: 3, tiers: [{ start: 200_000, price: 6 }] },
  output: { base: 15, tiers: [{ start: 200_000, price: 22.5 }] },
  cacheRead: { base: 0.3, tiers: [{ start: 200_000, price: 0.6 }] },
  cacheWrite: { base: 3.75, tiers: [{ start: 200_000, price: 7.5 }] },
};

describe('usageUsd', () => {
  it("prices the Anthropic docs' book example from its reported usage", () => {
    // First call: 188,086 written, 21 uncached; second: 188,086 read. 393 output tokens each.
    const first = usageUsd({
      prices: sonnet,
      inputTokens: 188_107,
      cacheWriteTokens: 188_086,
      outputTokens: 393,
    });
    const second = usageUsd({
      prices: sonnet,
      inputTokens: 188_107,
      cacheReadTokens: 188_086,
      outputTokens: 393,
    });
    expect(first).toBeCloseTo((188_086 * 3.75 + 21 * 3 + 393 * 15) / 1e6, 10);
    expect(second).toBeCloseTo((188_086 * 0.3 + 21 * 3 + 393 * 15) / 1e6, 10);
  });

  it('applies the long-context tier to the whole call over 200k prompt tokens', () => {
    const usd = usageUsd({ prices: sonnet, inputTokens: 250_000, outputTokens: 1_000 });
    expect(usd).toBeCloseTo((250_000 * 6 + 1_000 * 22.5) / 1e6, 10);
  });

  it('never counts more cached tokens than the prompt holds', () => {
    const usd = usageUsd({ prices: sonnet, inputTokens: 100, cacheReadTokens: 500 });
    expect(usd).toBeCloseTo((100 * 0.3) / 1e6, 12);
  });
});
