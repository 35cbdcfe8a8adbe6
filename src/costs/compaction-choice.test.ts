import { describe, expect, it } from 'vitest';
import {
  type CompactionChoiceOptions,
  chooseCompaction,
  projectCompactionUsd,
} from './compaction-choice.js';
import type { TokenPrices } from './types.js';

// Catalog prices (USD / MTok) of Claude Sonnet 4.5 and Haiku 4.5 under 200k tokens.
const sonnet: TokenPrices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const haiku: TokenPrices = { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 };

const base: CompactionChoiceOptions = {
  prices: sonnet,
  summarizerPrices: sonnet,
  cache: 'written',
  requestTokens: 20_000,
  thresholdTokens: 30_000,
  overheadTokens: 2_000,
  summaryTokens: 1_500,
  retainedTokens: [7_500, 3_750, 1_875],
  growthPerCall: 1_000,
  elapsedCalls: 20,
};

describe('chooseCompaction', () => {
  it('always compacts at or over the threshold, whatever the horizon or the cache', () => {
    for (const cache of ['written', 'automatic', 'none'] as const) {
      for (const elapsedCalls of [1, 5, 50]) {
        for (const requestTokens of [30_000, 31_000, 45_000]) {
          const choice = chooseCompaction({ ...base, cache, elapsedCalls, requestTokens });
          expect(choice.action).toBe('compact');
          expect(choice.reason).toBe('threshold');
        }
      }
    }
  });

  it('compacts deeper at the threshold when the rewrite costs more than the summarizer reads', () => {
    // Anthropic: a token kept costs a 1.25x write on the next request; summarized, a 1x read once.
    const choice = chooseCompaction({ ...base, requestTokens: 30_000, elapsedCalls: 10 });
    expect(choice.depth).toBe(2);
    expect(choice.retainedTokens).toBe(1_875);
    expect(choice.expectedUsd).toBeLessThan(choice.thresholdOnlyUsd);
  });

  it('keeps the configured depth when the summarizer is dearer than the agent and the session ends', () => {
    const choice = chooseCompaction({
      ...base,
      prices: haiku,
      summarizerPrices: sonnet,
      requestTokens: 30_000,
      elapsedCalls: 1,
      horizonCalls: 1,
    });
    expect(choice).toMatchObject({ action: 'compact', reason: 'threshold', depth: 0 });
  });

  it('waits under the threshold while the cache is warm and the session is short', () => {
    const choice = chooseCompaction({ ...base, requestTokens: 25_000, elapsedCalls: 3 });
    expect(choice).toMatchObject({ action: 'wait', reason: 'wait' });
  });

  it('compacts early, under the threshold, when the cache went cold and calls remain', () => {
    const warm = chooseCompaction({ ...base, requestTokens: 25_000, elapsedCalls: 20 });
    const cold = chooseCompaction({
      ...base,
      requestTokens: 25_000,
      elapsedCalls: 20,
      cacheCold: true,
    });
    expect(warm.action).toBe('wait');
    expect(cold).toMatchObject({ action: 'compact', reason: 'cold_cache' });
    expect(cold.expectedUsd).toBeLessThan(cold.thresholdOnlyUsd);
  });

  it('compacts early with a warm cache only when the projection says it is cheaper', () => {
    // No cache: every request pays its whole prompt at the input price, so shrinking it early
    // pays from the next call.
    const uncached = chooseCompaction({
      ...base,
      cache: 'none',
      requestTokens: 28_000,
      elapsedCalls: 30,
    });
    expect(uncached).toMatchObject({ action: 'compact', reason: 'cheaper_now' });
    // Nothing to gain when the request holds no more than the summary and the tail would.
    const small = chooseCompaction({ ...base, cache: 'none', requestTokens: 4_000 });
    expect(small.action).toBe('wait');
  });

  it('projects the uncompacted session as cache reads of the previous request plus its growth', () => {
    const usd = projectCompactionUsd({
      ...base,
      requestTokens: 10_000,
      elapsedCalls: 1,
      horizonCalls: 2,
      compactNow: false,
      depth: 0,
    });
    // This call: 9,000 read + 1,000 written; the next, 10,000 read + 1,000 written, with a
    // chance of 1 / (1 + 1) after one call.
    const first = (9_000 * 0.3 + 1_000 * 3.75) / 1e6;
    const second = (10_000 * 0.3 + 1_000 * 3.75) / 1e6;
    expect(usd).toBeCloseTo(first + second / 2, 10);
  });

  it('projects a compaction as its summarizer call plus the rewritten prefix', () => {
    const usd = projectCompactionUsd({
      ...base,
      requestTokens: 30_000,
      elapsedCalls: 1,
      horizonCalls: 1,
      compactNow: true,
      depth: 0,
    });
    // Summarizer: 30,000 - 2,000 - 7,500 + 500 read at $3, 1,500 written at $15; then a request
    // of 2,000 + 1,500 + 7,500 = 11,000 tokens: 2,000 read, 9,000 written.
    const summarizer = (21_000 * 3 + 1_500 * 15) / 1e6;
    expect(usd).toBeCloseTo(summarizer + (2_000 * 0.3 + 9_000 * 3.75) / 1e6, 10);
  });

  it("prices a summary on the agent's cached request as a cache read of its prefix", () => {
    const options = {
      ...base,
      requestTokens: 30_000,
      elapsedCalls: 1,
      horizonCalls: 1,
      compactNow: true,
      depth: 0,
    };
    const reused = projectCompactionUsd({ ...options, summaryReusesPrefix: true });
    // The agent's request as sent: 29,000 shared with the previous one read at $0.30, the call
    // since and the 500-token instruction (1,500) written at $3.75, the summary at $15.
    const summary = (29_000 * 0.3 + 1_500 * 3.75 + 1_500 * 15) / 1e6;
    expect(reused).toBeCloseTo(summary + (2_000 * 0.3 + 9_000 * 3.75) / 1e6, 10);
    expect(reused).toBeLessThan(projectCompactionUsd(options));
    // A cold cache has no prefix to read: the summary is priced standalone.
    expect(projectCompactionUsd({ ...options, summaryReusesPrefix: true, cacheCold: true })).toBe(
      projectCompactionUsd({ ...options, cacheCold: true }),
    );
  });
});
