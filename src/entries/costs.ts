/**
 * `orrery-runtime/costs`: the cost model: prompt-cache splits per provider, dollars per request
 * and per session, and the price catalog (docs/cost.md).
 */

export {
  type CacheRequest,
  type CacheSplit,
  CostModelError,
  type CostTotals,
  defaultCachePolicy,
  type PriceRate,
  type PromptCachePolicy,
  type RequestCost,
  requestCosts,
  type SessionCostOptions,
  sessionCost,
  simulatePromptCache,
  type TokenPrices,
} from '../costs/index.js';
export { lookupModelPrice, type ModelPrice } from '../models/price-catalog.js';
