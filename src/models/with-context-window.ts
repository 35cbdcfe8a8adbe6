import { ModelConfigError } from './errors.js';
import type { Model } from './types.js';

/**
 * `model` with another input window (`contextWindowTokens`): for a model the built-in table does
 * not know, or knows wrongly. Calls go to `model` unchanged. Throws `ModelConfigError` for a
 * window that is not a positive integer.
 */
export function withContextWindow(options: { model: Model; contextWindowTokens: number }): Model {
  const { model, contextWindowTokens } = options;
  checkContextWindowTokens(contextWindowTokens);
  const stream = model.stream;
  return {
    modelId: model.modelId,
    contextWindowTokens,
    generate: (request) => model.generate(request),
    ...(stream && {
      stream: (request, streamOptions) => stream.call(model, request, streamOptions),
    }),
  };
}

export function checkContextWindowTokens(value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ModelConfigError({
      variable: 'contextWindowTokens',
      value: String(value),
      message: `contextWindowTokens=${String(value)} is invalid: expected a positive integer (the model's input window in tokens)`,
    });
  }
}
