import { describe, expect, it } from 'vitest';
import { ModelConfigError, ModelError } from './errors.js';
import { resolveModel } from './resolve-model.js';

const BASE_URL = 'http://admin:hunter2pw@127.0.0.1:9/v1';

describe('model errors never carry credentials', () => {
  it('masks a password in a ModelError message and a ModelConfigError message and value', () => {
    const model = new ModelError({
      kind: 'fatal',
      message: `call to ${BASE_URL}/chat failed, Authorization: Bearer abcdefgh12345678`,
    });
    expect(model.message).toBe(
      'call to http://admin:***@127.0.0.1:9/v1/chat failed, Authorization: Bearer [REDACTED:bearer_token]',
    );
    const config = new ModelConfigError({
      variable: 'OPENAI_BASE_URL',
      value: BASE_URL,
      message: `OPENAI_BASE_URL='${BASE_URL}' is invalid`,
    });
    expect(config.message).toBe("OPENAI_BASE_URL='http://admin:***@127.0.0.1:9/v1' is invalid");
    expect(config.value).toBe('http://admin:***@127.0.0.1:9/v1');
  });

  it('a base URL with user:password@ is masked in the error of a model call', async () => {
    const model = await resolveModel({
      modelId: 'openai-compatible:qwen3:8b',
      env: { ORRERY_OPENAI_COMPATIBLE_BASE_URL: BASE_URL },
    });
    // Node's fetch refuses a URL with credentials and quotes it in its error.
    const error = await model
      .generate({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).message).toContain('http://admin:***@127.0.0.1:9/v1');
    expect((error as ModelError).message).not.toContain('hunter2pw');
  });

  it('a base URL that is not http is masked in the ModelConfigError', async () => {
    const error = await resolveModel({
      modelId: 'openai:gpt-4.1',
      env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://admin:hunter2pw@host/v1' },
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect((error as ModelConfigError).message).toBe(
      "OPENAI_BASE_URL='ftp://admin:***@host/v1' must be an http or https URL",
    );
  });
});
