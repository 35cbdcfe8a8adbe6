/**
 * The `costAware` option of the compaction config (docs/cost.md#cost-aware-compaction): catalog
 * ids checked for shape here (pure); the prices themselves are looked up by the runtime.
 */
import { InvalidConfigError } from './errors.js';
import type { CostAwareConfig } from './types.js';

const MODEL_ID = /^[a-z][a-z0-9-]*:\S+$/i;

/** The checked option: `undefined` when off (`false` or unset). Throws naming the bad field. */
export function checkCostAwareConfig(option: unknown): CostAwareConfig | undefined {
  if (option === undefined || option === false) return undefined;
  if (typeof option !== 'object' || option === null || Array.isArray(option)) {
    throw new InvalidConfigError({
      field: 'costAware',
      value: option,
      message: "expected false or { price: 'provider:model', summarizerPrice? }",
    });
  }
  const record = option as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'price' && key !== 'summarizerPrice') {
      throw new InvalidConfigError({
        field: `costAware.${key}`,
        value: typeof record[key] === 'object' ? 'object' : record[key],
        message: 'is not a costAware field (known: price, summarizerPrice)',
      });
    }
  }
  const price = checkModelId('costAware.price', record.price);
  if (price === undefined) {
    throw new InvalidConfigError({
      field: 'costAware.price',
      value: undefined,
      message:
        "is required: the agent's model as 'provider:model', e.g. anthropic:claude-sonnet-4-5",
    });
  }
  const summarizerPrice = checkModelId('costAware.summarizerPrice', record.summarizerPrice);
  return Object.freeze({ price, ...(summarizerPrice === undefined ? {} : { summarizerPrice }) });
}

function checkModelId(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !MODEL_ID.test(value.trim())) {
    throw new InvalidConfigError({
      field,
      value,
      message: "expected a catalog model id like 'anthropic:claude-sonnet-4-5'",
    });
  }
  return value.trim();
}
