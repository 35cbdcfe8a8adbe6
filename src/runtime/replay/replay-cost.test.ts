import { describe, expect, it } from 'vitest';
import type { ReplayReport } from './replay.js';
import { cacheRequests, type PricedModel, replayCost } from './replay-cost.js';

// Three calls; a compaction before the third rewrote everything after the 2,000-token overhead.
function report(): ReplayReport {
  return {
    sessionId: 's',
    events: 6,
    modelCalls: 3,
    compactions: [
      {
        trigger: 'token_threshold',
        startSeq: 1,
        endSeq: 3,
        tokensBefore: 12_000,
        tokensAfter: 4000,
        beforeCall: 3,
        summarizer: 'digest',
        summaryTokens: 1000,
      },
    ],
    maxViewTokens: 10_000,
    maxViewBytes: 1,
    orphans: 0,
    lossless: true,
    tokens: { withCompaction: 19_000, withoutCompaction: 27_000 },
    requests: [
      { withCompaction: 5000, withoutCompaction: 5000, bytes: 1, outputTokens: 100, timestamp: 0 },
      {
        withCompaction: 10_000,
        withoutCompaction: 10_000,
        bytes: 1,
        outputTokens: 100,
        timestamp: 10,
      },
      {
        withCompaction: 4000,
        withoutCompaction: 12_000,
        bytes: 1,
        outputTokens: 100,
        timestamp: 20,
      },
    ],
    failures: [],
    recordedCompactionsIgnored: 0,
    overheadTokens: 2000,
  };
}

const anthropic: PricedModel = {
  id: 'anthropic:test',
  prices: { input: 3, cacheWrite: 3.75, cacheRead: 0.3, output: 15 },
  policy: { provider: 'anthropic', minimumTokens: 1024 },
};

describe('replayCost', () => {
  it('shares the previous request, or only the overhead after a compaction', () => {
    expect(cacheRequests(report(), 'withCompaction', true)).toEqual([
      { inputTokens: 5000, outputTokens: 100, sharedPrefixTokens: 0, breakpoints: [2000, 5000] },
      {
        inputTokens: 10_000,
        outputTokens: 100,
        sharedPrefixTokens: 5000,
        breakpoints: [2000, 10_000],
        secondsSincePrevious: 10,
      },
      {
        inputTokens: 4000,
        outputTokens: 100,
        sharedPrefixTokens: 2000,
        breakpoints: [2000, 4000],
        secondsSincePrevious: 10,
      },
    ]);
    expect(cacheRequests(report(), 'withoutCompaction', false)[2]).toEqual({
      inputTokens: 12_000,
      outputTokens: 100,
      sharedPrefixTokens: 10_000,
      secondsSincePrevious: 10,
    });
  });

  it('prices both sides and the summarizer call', () => {
    const cost = replayCost({
      report: report(),
      model: anthropic,
      summarizerPromptTokens: 0,
      reuseAgentPrefix: false,
    });
    expect(cost.summarizerReusesAgentPrefix).toBe(false);
    // With: write 5,000; read 5,000 + write 5,000; read 2,000 + write 2,000.
    expect(cost.withCompaction).toMatchObject({
      inputTokens: 19_000,
      cacheReadTokens: 7000,
      cacheWriteTokens: 12_000,
      outputTokens: 300,
    });
    // The summarizer read 12,000 - 4,000 + 1,000 tokens and wrote the 1,000-token summary.
    const summarizerUsd = (9000 * 3 + 1000 * 15) / 1e6;
    expect(cost.withCompaction.summarizerUsd).toBeCloseTo(summarizerUsd, 10);
    const agentUsd = (12_000 * 3.75 + 7000 * 0.3 + 300 * 15) / 1e6;
    expect(cost.withCompaction.usd).toBeCloseTo(agentUsd + summarizerUsd, 10);
    // Without: write 5,000; read 5,000 + write 5,000; read 10,000 + write 2,000.
    expect(cost.withoutCompaction).toMatchObject({
      inputTokens: 27_000,
      cacheReadTokens: 15_000,
      cacheWriteTokens: 12_000,
      summarizerUsd: 0,
    });
    expect(cost).toMatchObject({ model: 'anthropic:test', currency: 'USD', cacheHints: true });
    // Once: 0.042 + (2,000 x 3.75 + 2,000 x 0.3 - 12,000 x 0.3) / 1e6 = 0.0465; each later call
    // saves 8,000 tokens read at 0.3: 0.0024, so 20 calls; the session had none left.
    expect(cost.compactions).toEqual([
      { beforeCall: 3, summarizerUsd: summarizerUsd, paybackCalls: 20, callsAfter: 0 },
    ]);
  });

  it("prices a summary on the agent's model as a read of the agent's cached request", () => {
    const cost = replayCost({ report: report(), model: anthropic, summarizerPromptTokens: 500 });
    expect(cost.summarizerReusesAgentPrefix).toBe(true);
    // The summary request re-sends call 2 (10,000 tokens, cached by it 10 s before): a read;
    // then the events since (12,000 - 10,000) and the 500-token instruction, written behind the
    // last breakpoint; then the 1,000-token summary.
    const prefixUsd = (10_000 * 0.3 + 2500 * 3.75 + 1000 * 15) / 1e6;
    expect(prefixUsd).toBeCloseTo(0.027375, 10);
    expect(cost.withCompaction.summarizerUsd).toBeCloseTo(prefixUsd, 10);
    // Standalone it would read 9,000 + 500 tokens uncached: 0.0435.
    const standalone = replayCost({ report: report(), model: anthropic, reuseAgentPrefix: false });
    expect(standalone.withCompaction.summarizerUsd).toBeCloseTo((9500 * 3 + 1000 * 15) / 1e6, 10);
    // The agent's own calls are priced the same either way.
    expect(cost.withCompaction.usd - prefixUsd).toBeCloseTo(
      standalone.withCompaction.usd - standalone.withCompaction.summarizerUsd,
      10,
    );
  });

  it('prices standalone once the cache entry has expired (the runtime does not reuse it)', () => {
    const late = report();
    late.requests[2]!.timestamp = 10 + 301;
    const cost = replayCost({ report: late, model: anthropic, summarizerPromptTokens: 0 });
    expect(cost.withCompaction.summarizerUsd).toBeCloseTo((9000 * 3 + 1000 * 15) / 1e6, 10);
  });

  it('without cache hints Anthropic caches nothing', () => {
    const cost = replayCost({ report: report(), model: anthropic, cacheHints: false });
    expect(cost.withCompaction.cacheReadTokens).toBe(0);
    expect(cost.withCompaction.cacheWriteTokens).toBe(0);
    expect(cost.withoutCompaction.cacheReadTokens).toBe(0);
  });

  it('a summarizer model of its own is priced at its own rates', () => {
    const cheap: PricedModel = {
      id: 'google:cheap',
      prices: { input: 0.1, output: 0.4 },
      policy: { provider: 'none' },
    };
    const cost = replayCost({
      report: report(),
      model: anthropic,
      summarizer: cheap,
      summarizerPromptTokens: 0,
    });
    expect(cost.summarizerModel).toBe('google:cheap');
    expect(cost.summarizerReusesAgentPrefix).toBe(false);
    expect(cost.withCompaction.summarizerUsd).toBeCloseTo((9000 * 0.1 + 1000 * 0.4) / 1e6, 10);
  });
});
