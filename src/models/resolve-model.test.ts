import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
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

  it('keeps the password of a malformed base URL out of the error and its cause', async () => {
    const error = await resolveModel({
      modelId: 'openai:gpt-4o',
      env: { ...testEnv, OPENAI_BASE_URL: 'http//bob:S3cretPw9@127.0.0.1:33063/v1' },
    }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('OPENAI_BASE_URL');
    // Node's URL error keeps the raw input on `cause.input`; everything printed must be masked.
    expect(inspect(error, { depth: 10 })).not.toContain('S3cretPw9');
    expect(error.message).toContain('not a valid URL');
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
