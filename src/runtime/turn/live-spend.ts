/**
 * Live spend (docs/cost.md#live-spend): each model call's estimated USD from the usage its
 * provider reported, at the catalog price of the call's model. A model the catalog does not know
 * (or an id without a provider) has no price: its calls get no estimate, never a guessed one.
 */
import type { TokenPrices } from '../../costs/types.js';
import { usageUsd } from '../../costs/usage-cost.js';
import { lookupModelPrice } from '../../models/price-catalog.js';
import type { ModelResponse } from '../../models/types.js';

export type PriceLookup = (options: { provider: string; model: string }) => Promise<{
  prices: TokenPrices;
}>;

/** Catalog prices per model id, looked up once each (the catalog loads at the first lookup). */
export class SpendPrices {
  private readonly lookup: PriceLookup;
  private readonly known = new Map<string, Promise<TokenPrices | undefined>>();

  constructor(options: { lookup?: PriceLookup } = {}) {
    this.lookup = options.lookup ?? lookupModelPrice;
  }

  /** The prices of `provider:model`, or `undefined` when the catalog has none. */
  pricesFor(modelId: string): Promise<TokenPrices | undefined> {
    let found = this.known.get(modelId);
    if (!found) {
      const colon = modelId.indexOf(':');
      const provider = colon === -1 ? '' : modelId.slice(0, colon);
      const model = colon === -1 ? '' : modelId.slice(colon + 1);
      found =
        provider === '' || model === ''
          ? Promise.resolve(undefined)
          : this.lookup({ provider, model }).then(
              (price) => price.prices,
              () => undefined,
            );
      this.known.set(modelId, found);
    }
    return found;
  }
}

/** A call's estimated USD from its reported usage, or `undefined` without prices or usage. */
export function responseUsd(
  prices: TokenPrices | undefined,
  response: ModelResponse | undefined,
): number | undefined {
  const usage = response?.usageMetadata;
  if (!prices || usage?.promptTokenCount === undefined) return undefined;
  return usageUsd({
    prices,
    inputTokens: usage.promptTokenCount,
    cacheReadTokens: usage.cachedContentTokenCount,
    cacheWriteTokens: response?.cacheWriteTokenCount,
    outputTokens: usage.candidatesTokenCount,
  });
}
