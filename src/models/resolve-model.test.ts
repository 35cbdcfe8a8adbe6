import { describe, expect, it } from 'vitest';
import { knownContextWindow, knownContextWindowTokens } from './context-windows.js';
import { ModelConfigError } from './errors.js';
import { parseModelId, resolveModel } from './resolve-model.js';
import { testEnv } from './test-helpers/travel-request.js';

function configErrorOf(run: () => unknown): ModelConfigError {
  try {
    run();
  } catch (error) {
    if (ModelConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ModelConfigError');
}

describe('parseModelId', () => {
  it('splits at the first colon only', () => {
    expect(parseModelId('google:gemini-2.5-flash')).toEqual({
      provider: 'google',
      modelName: 'gemini-2.5-flash',
    });
    expect(parseModelId('openai-compatible:qwen3:8b')).toEqual({
      provider: 'openai-compatible',
      modelName: 'qwen3:8b',
    });
  });

  it.each(['gemini-2.5-flash', ':gpt-4o', 'openai:', ' : '])(
    "names the malformed id '%s'",
    (modelId) => {
      const error = configErrorOf(() => parseModelId(modelId));
      expect(error.variable).toBe('modelId');
      expect(error.value).toBe(modelId);
      expect(error.message).toContain(`'${modelId}' is malformed`);
    },
  );

  it('names an unknown provider and the known ones', () => {
    const error = configErrorOf(() => parseModelId('mistral:large'));
    expect(error.value).toBe('mistral:large');
    expect(error.message).toContain("unknown provider 'mistral'");
    expect(error.message).toContain('google, openai, anthropic, openai-compatible');
  });
});

describe('resolveModel', () => {
  it('rejects a bad id before reading the environment', async () => {
    const error = await resolveModel({ modelId: 'nope', env: {} }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('modelId');
  });

  it('treats a blank key as missing', async () => {
    const error = await resolveModel({
      modelId: 'anthropic:claude-sonnet-4-5',
      env: { ANTHROPIC_API_KEY: '  ' },
    }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('ANTHROPIC_API_KEY');
  });

  it('rejects a base URL that is not http(s), naming the variable and value', async () => {
    const error = await resolveModel({
      modelId: 'openai:gpt-4o',
      env: { ...testEnv, OPENAI_BASE_URL: 'ftp://example.com' },
    }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('OPENAI_BASE_URL');
    expect(error.message).toContain("'ftp://example.com'");
  });

  it('sets the known context window, and lets the caller override it', async () => {
    const gemini = await resolveModel({ modelId: 'google:gemini-2.5-flash', env: testEnv });
    expect(gemini.modelId).toBe('google:gemini-2.5-flash');
    expect(gemini.contextWindowTokens).toBe(1_048_576);
    const local = await resolveModel({
      modelId: 'openai-compatible:llama3.1:8b',
      env: testEnv,
      contextWindowTokens: 8192,
    });
    expect(local.contextWindowTokens).toBe(8192);
  });
});

describe('knownContextWindowTokens', () => {
  it.each([
    ['gemini-2.5-flash', 1_048_576],
    ['gemini-2.5-pro', 1_048_576],
    ['gemini-flash-latest', 1_048_576],
    ['models/gemini-2.0-flash-001', 1_048_576],
    ['gpt-4o', 128_000],
    ['gpt-4o-mini', 128_000],
    ['gpt-4.1-mini', 1_047_576],
    ['claude-sonnet-4-5', 200_000],
    ['claude-3-5-haiku-latest', 200_000],
    // GPT-5: 400k is the total; input is 272k (128k is reserved for output).
    ['gpt-5', 272_000],
    ['gpt-5-mini', 272_000],
    ['gpt-5.1', 272_000],
    ['gpt-5-chat-latest', 128_000],
  ])('knows %s', (name, tokens) => {
    expect(knownContextWindowTokens(name)).toBe(tokens);
  });

  it('names the source of each figure', () => {
    expect(knownContextWindow('gpt-5-nano')).toEqual({
      inputTokens: 272_000,
      source: expect.stringContaining('272,000 input'),
    });
  });

  it('returns undefined for unknown models', () => {
    expect(knownContextWindowTokens('qwen3:8b')).toBeUndefined();
    expect(knownContextWindowTokens('gpt-3.5-turbo')).toBeUndefined();
  });
});
