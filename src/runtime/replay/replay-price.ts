/**
 * A `provider:model` id as a priced model (`orrery replay --price`, `orrery eval --price`, the
 * inspector's replay `price`): the catalog's prices and the provider's cache policy
 * (docs/cost.md). An id the catalog does not know is an error that names it (`flag`, as the
 * caller calls the setting), never a guessed price.
 */
import { COMPACTION_DEFAULTS } from '../../compaction/config.js';
import { defaultCachePolicy } from '../../costs/default-policy.js';
import { ModelConfigError } from '../../models/errors.js';
import { lookupModelPrice } from '../../models/price-catalog.js';
import type { PricedModel } from './replay-cost.js';

export async function pricedModel(id: string, flag = '--price'): Promise<PricedModel> {
  const colon = id.indexOf(':');
  const provider = colon === -1 ? '' : id.slice(0, colon).trim();
  const model = colon === -1 ? '' : id.slice(colon + 1).trim();
  if (provider === '' || model === '') {
    throw new ModelConfigError({
      variable: flag,
      value: id,
      message: `${flag} '${id}' is malformed: expected 'provider:model', e.g. 'anthropic:claude-sonnet-4-5'`,
    });
  }
  const price = await lookupModelPrice({ provider, model });
  return {
    id: `${provider}:${model}`,
    prices: price.prices,
    policy: defaultCachePolicy({ provider: price.catalogProvider, model }),
  };
}

/**
 * The summarizer's price: `--summarizer-price`, else the `--summarizer` model, else with
 * `--cost-aware` the smaller model a cost-aware Runner summarizes with by default
 * (`COMPACTION_DEFAULTS.costAwareSummarizerModels`), else `--price`'s.
 */
export async function summarizerPricedModel(options: {
  summarizerPrice?: string;
  summarizer: string;
  price: PricedModel;
  costAware?: boolean;
}): Promise<PricedModel> {
  if (options.summarizerPrice !== undefined) {
    return pricedModel(options.summarizerPrice, '--summarizer-price');
  }
  if (options.summarizer.includes(':')) return pricedModel(options.summarizer, '--summarizer');
  if (options.costAware) {
    const provider = options.price.id.slice(0, options.price.id.indexOf(':'));
    const cheaper = COMPACTION_DEFAULTS.costAwareSummarizerModels[provider];
    if (cheaper !== undefined) return pricedModel(cheaper, '--cost-aware');
  }
  return options.price;
}
