import { describe, expect, it } from 'vitest';
import { ModelConfigError } from './errors.js';
import { lookupModelPrice } from './price-catalog.js';

describe('lookupModelPrice', () => {
  it('reads Anthropic prices with cache writes at 1.25x and reads at 0.1x input', async () => {
    const price = await lookupModelPrice({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(price.catalogModelId).toBe('claude-sonnet-4-5');
    expect(price.prices.input).toEqual({ base: 3, tiers: [{ start: 200_000, price: 6 }] });
    expect(price.prices.cacheWrite).toEqual({
      base: 3.75,
      tiers: [{ start: 200_000, price: 7.5 }],
    });
    expect(price.prices.cacheRead).toEqual({ base: 0.3, tiers: [{ start: 200_000, price: 0.6 }] });
    expect(price.source).toBe('@pydantic/genai-prices: anthropic claude-sonnet-4-5');
  });

  it('resolves a dated name to its family', async () => {
    const price = await lookupModelPrice({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
    });
    expect(price.catalogModelId).toBe('claude-sonnet-4-5');
  });

  it('reads OpenAI and Gemini cache read prices; neither bills a write', async () => {
    const gpt = await lookupModelPrice({ provider: 'openai', model: 'gpt-4o' });
    expect(gpt.prices).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 });
    const gemini = await lookupModelPrice({ provider: 'gemini', model: 'gemini-2.5-flash' });
    expect(gemini.prices).toMatchObject({ input: 0.3, cacheRead: 0.03, output: 2.5 });
    expect(gemini.prices.cacheWrite).toBeUndefined();
  });

  it('says so for a model the catalog does not list, naming it', async () => {
    const failure = lookupModelPrice({ provider: 'anthropic', model: 'claude-imaginary-9' });
    await expect(failure).rejects.toSatisfy(
      (error: unknown) =>
        ModelConfigError.isInstance(error) &&
        error.value === 'anthropic:claude-imaginary-9' &&
        error.variable === 'price',
    );
    await expect(lookupModelPrice({ provider: 'nowhere', model: 'gpt-4o' })).rejects.toThrow(
      /No price for nowhere:gpt-4o/,
    );
  });
});
