import type { ReplayCost, ReplayCostFigures } from './replay-cost.js';

/** Several transcripts' costs added up (the same model and settings). */
export function sumReplayCosts(costs: readonly ReplayCost[]): ReplayCost {
  const add = (pick: (cost: ReplayCost) => ReplayCostFigures): ReplayCostFigures => {
    const total: ReplayCostFigures = {
      inputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      summarizerUsd: 0,
      usd: 0,
    };
    for (const cost of costs) {
      const figures = pick(cost);
      total.inputTokens += figures.inputTokens;
      total.cacheReadTokens += figures.cacheReadTokens;
      total.cacheWriteTokens += figures.cacheWriteTokens;
      total.outputTokens += figures.outputTokens;
      total.summarizerUsd += figures.summarizerUsd;
      total.usd += figures.usd;
    }
    return total;
  };
  const first = costs[0];
  return {
    model: first?.model ?? '',
    currency: 'USD',
    summarizerModel: first?.summarizerModel ?? '',
    summarizerReusesAgentPrefix: first?.summarizerReusesAgentPrefix ?? false,
    cacheHints: first?.cacheHints ?? true,
    withCompaction: add((cost) => cost.withCompaction),
    withoutCompaction: add((cost) => cost.withoutCompaction),
    compactions: costs.flatMap((cost) => cost.compactions),
    perCallUsd: {
      withCompaction: costs.flatMap((cost) => cost.perCallUsd.withCompaction),
      withoutCompaction: costs.flatMap((cost) => cost.perCallUsd.withoutCompaction),
    },
  };
}
