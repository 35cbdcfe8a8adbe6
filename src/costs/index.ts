export {
  type CacheBilling,
  type CompactionChoice,
  type CompactionChoiceOptions,
  type CompactionChoiceReason,
  chooseCompaction,
  projectCompactionUsd,
} from './compaction-choice.js';
export {
  anthropicMinimumTokens,
  defaultCachePolicy,
  geminiMinimumTokens,
} from './default-policy.js';
export { CostModelError } from './errors.js';
export {
  type ExplicitCacheDecision,
  type ExplicitCacheDecisionOptions,
  type ExplicitCacheReason,
  explicitCacheDecision,
  geminiStoragePerMTokHour,
} from './gemini-explicit.js';
export { compactionPayback, type Payback, type PaybackOptions } from './payback.js';
export type { CacheSplit, PromptCachePolicy } from './prompt-cache.js';
export { openAiCached, simulatePromptCache } from './prompt-cache.js';
export type { SessionCostOptions } from './session-cost.js';
export { rateAt, requestCosts, sessionCost, sumCosts } from './session-cost.js';
export type * from './types.js';
export { type UsageCostOptions, usageUsd } from './usage-cost.js';
