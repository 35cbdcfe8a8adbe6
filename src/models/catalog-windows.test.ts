import { calcPrice, findProvider } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { CATALOG_VERSIONS, CATALOG_WINDOWS } from './catalog-windows.js';
import { knownContextWindow, knownContextWindowTokens } from './context-windows.js';

describe('the generated window table', () => {
  it('resolves every catalog model as the catalog itself does', () => {
    for (const providerId of ['anthropic', 'openai', 'google']) {
      const provider = findProvider({ providerId });
      expect(provider).toBeDefined();
      for (const model of provider?.models ?? []) {
        if (model.context_window === undefined) continue;
        const resolved = calcPrice({}, model.id, { providerId });
        const window = knownContextWindow(model.id, providerId);
        // The regenerate hint: run `npx tsx scripts/update-model-windows.ts`.
        expect({ id: model.id, window: window?.inputTokens }).toEqual({
          id: model.id,
          window: resolved?.model.context_window,
        });
      }
    }
  });

  it('holds a row for every catalog model with a window', () => {
    const rows = new Set(CATALOG_WINDOWS.map((row) => `${row.provider}:${row.id}`));
    for (const providerId of ['anthropic', 'openai', 'google']) {
      for (const model of findProvider({ providerId })?.models ?? []) {
        if (model.context_window !== undefined) {
          expect(rows.has(`${providerId}:${model.id}`)).toBe(true);
        }
      }
    }
  });
});

describe('knownContextWindowTokens', () => {
  it.each([
    ['claude-sonnet-4-5', 200_000],
    ['claude-sonnet-4-5-20250929', 200_000],
    ['gpt-4o', 128_000],
    ['gpt-4.1-mini', 1_000_000],
    ['gemini-2.5-flash', 1_048_576],
    ['models/gemini-2.5-flash', 1_048_576],
    // genai-prices lists no window for it; models.dev does.
    ['gemini-2.5-pro', 1_048_576],
    ['gpt-5', 400_000],
  ])('knows %s', (name, tokens) => {
    expect(knownContextWindowTokens(name)).toBe(tokens);
  });

  it('names the catalog each figure comes from', () => {
    expect(knownContextWindow('gemini-2.5-pro')?.source).toMatch(/^models\.dev/);
    expect(knownContextWindow('claude-sonnet-4-5')?.source).toBe(
      `@pydantic/genai-prices ${CATALOG_VERSIONS.genaiPrices}: anthropic claude-sonnet-4-5`,
    );
  });

  it('says nothing of models no catalog lists', () => {
    expect(knownContextWindowTokens('qwen3:8b')).toBeUndefined();
    expect(knownContextWindowTokens('my-local-model')).toBeUndefined();
  });
});
