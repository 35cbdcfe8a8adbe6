import { describe, expect, it } from 'vitest';
import { explicitCacheDecision, geminiStoragePerMTokHour } from './gemini-explicit.js';

const flash = { input: 0.3, output: 2.5, cacheRead: 0.03 };
const pro = {
  input: { base: 1.25, tiers: [{ start: 200_000, price: 2.5 }] },
  output: 10,
  cacheRead: { base: 0.125, tiers: [{ start: 200_000, price: 0.25 }] },
};

describe('geminiStoragePerMTokHour', () => {
  it('is the pricing page figure per family', () => {
    expect(geminiStoragePerMTokHour('gemini-2.5-pro')).toBe(4.5);
    expect(geminiStoragePerMTokHour('models/gemini-3-pro-preview')).toBe(4.5);
    expect(geminiStoragePerMTokHour('gemini-2.5-flash')).toBe(1);
    expect(geminiStoragePerMTokHour('gemini-2.5-flash-lite')).toBe(1);
    expect(geminiStoragePerMTokHour('gemma-3-27b-it')).toBeUndefined();
  });
});

describe('explicitCacheDecision', () => {
  const base = { prefixTokens: 10_000, ttlSeconds: 3600, minimumTokens: 1024 };

  it('Flash, one hour: pays from the 5th read (0.30 N > 0.30 + 0.03 N + 1.00)', () => {
    const at = (expectedReads: number) =>
      explicitCacheDecision({ ...base, prices: flash, storagePerMTokHour: 1, expectedReads });
    expect(at(4)).toMatchObject({ pays: false, reason: 'too_few_reads' });
    const five = at(5);
    expect(five).toMatchObject({ pays: true, reason: 'pays' });
    expect(five.uncachedUsd).toBeCloseTo((5 * 10_000 * 0.3) / 1e6, 12);
    expect(five.cachedUsd).toBeCloseTo((10_000 * (0.3 + 5 * 0.03 + 1)) / 1e6, 12);
  });

  it('a five-minute TTL pays from the 2nd read; Pro at an hour from the 5th', () => {
    const flash5m = (expectedReads: number) =>
      explicitCacheDecision({
        ...base,
        ttlSeconds: 300,
        prices: flash,
        storagePerMTokHour: 1,
        expectedReads,
      }).pays;
    expect([flash5m(1), flash5m(2)]).toEqual([false, true]);
    const proHour = (expectedReads: number) =>
      explicitCacheDecision({ ...base, prices: pro, storagePerMTokHour: 4.5, expectedReads }).pays;
    // 1.25 N > 1.25 + 0.125 N + 4.5  <=>  N > 5.1
    expect([proHour(5), proHour(6)]).toEqual([false, true]);
  });

  it('never under the model minimum', () => {
    const decision = explicitCacheDecision({
      ...base,
      prefixTokens: 1000,
      prices: flash,
      storagePerMTokHour: 1,
      expectedReads: 1000,
    });
    expect(decision).toMatchObject({ pays: false, reason: 'below_minimum' });
  });
});
