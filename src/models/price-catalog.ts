/**
 * Model prices from `@pydantic/genai-prices` (a maintained catalog of provider prices including
 * cache reads and writes), never from a table in this code. The catalog's data is bundled in the
 * package: nothing is fetched at run time (its `updatePrices` is never called). It is loaded on
 * first use (a 2 MB module), so importing orrery does not pay for it. docs/cost.md#prices
 */
import type { PriceRate, TokenPrices } from '../costs/types.js';
import { ModelConfigError } from './errors.js';

export interface ModelPrice {
  /** The provider as given (`anthropic`, `openai`, `google`). */
  provider: string;
  /** The model name as given. */
  model: string;
  /** The catalog's provider id (`google` for `gemini`). */
  catalogProvider: string;
  /** The catalog's id of the model the name resolved to (e.g. a dated name to its family). */
  catalogModelId: string;
  prices: TokenPrices;
  /** The catalog's context window, when it lists one. */
  contextWindowTokens?: number;
  /** e.g. `@pydantic/genai-prices: anthropic claude-sonnet-4-5`. */
  source: string;
}

/** `orrery`'s provider names where the catalog calls them differently. */
const CATALOG_PROVIDER: Record<string, string> = { gemini: 'google', 'google-vertex': 'google' };

/**
 * The catalog prices of `provider:model` at `timestamp` (default now), or a `ModelConfigError`
 * naming the model when the catalog does not know it: a price is never guessed.
 */
export async function lookupModelPrice(options: {
  provider: string;
  model: string;
  timestamp?: Date;
}): Promise<ModelPrice> {
  const { provider, model } = options;
  const catalog = await import('@pydantic/genai-prices');
  const providerId = CATALOG_PROVIDER[provider] ?? provider;
  const found = catalog.calcPrice({}, model, {
    providerId,
    ...(options.timestamp ? { timestamp: options.timestamp } : {}),
  });
  if (!found) {
    throw new ModelConfigError({
      variable: 'price',
      value: `${provider}:${model}`,
      message: `No price for ${provider}:${model} in @pydantic/genai-prices: name a model the catalog lists (e.g. anthropic:claude-sonnet-4-5)`,
    });
  }
  const price = found.model_price;
  const input = rate(price.input_mtok);
  const output = rate(price.output_mtok);
  if (input === undefined || output === undefined) {
    throw new ModelConfigError({
      variable: 'price',
      value: `${provider}:${model}`,
      message: `@pydantic/genai-prices lists ${found.provider.id} ${found.model.id} without token prices`,
    });
  }
  const cacheRead = rate(price.cache_read_mtok);
  const cacheWrite = rate(price.cache_write_mtok);
  const cacheWrite1h = rate(price.cache_write_1h_mtok);
  return {
    provider,
    model,
    catalogProvider: found.provider.id,
    catalogModelId: found.model.id,
    prices: {
      input,
      output,
      ...(cacheRead === undefined ? {} : { cacheRead }),
      ...(cacheWrite === undefined ? {} : { cacheWrite }),
      ...(cacheWrite1h === undefined ? {} : { cacheWrite1h }),
    },
    ...(found.model.context_window === undefined
      ? {}
      : { contextWindowTokens: found.model.context_window }),
    source: `@pydantic/genai-prices: ${found.provider.id} ${found.model.id}`,
  };
}

function rate(value: unknown): PriceRate | undefined {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'base' in value && 'tiers' in value) {
    const tiered = value as { base: number; tiers: { start: number; price: number }[] };
    return {
      base: tiered.base,
      tiers: tiered.tiers.map(({ start, price }) => ({ start, price })),
    };
  }
  return undefined;
}
