/**
 * `orrery-runtime/costs`: the cost model: prompt-cache splits per provider, dollars per request
 * and per session, and the price catalog (docs/cost.md).
 */

export type { CostChoiceNote } from '../compaction/types.js';
export {
  type CacheBilling,
  type CacheRequest,
  type CacheSplit,
  type CompactionChoice,
  type CompactionChoiceOptions,
  type CompactionChoiceReason,
  CostModelError,
  type CostTotals,
  chooseCompaction,
  defaultCachePolicy,
  type ExplicitCacheDecision,
  type ExplicitCacheDecisionOptions,
  type ExplicitCacheReason,
  explicitCacheDecision,
  geminiStoragePerMTokHour,
  type PriceRate,
  type PromptCachePolicy,
  type RequestCost,
  requestCosts,
  type SessionCostOptions,
  sessionCost,
  simulatePromptCache,
  type TokenPrices,
  type UsageCostOptions,
  usageUsd,
} from '../costs/index.js';
export { lookupModelPrice, type ModelPrice } from '../models/price-catalog.js';
