/**
 * A streamed model call with the agent's backoff: a stream that fails before its first part
 * (a 429 or 5xx on the request, a cut connection) is retried like `generate`; once a part was
 * handed on, an error ends the call, since the caller has already shown what came before.
 */
import { ModelError } from '../../models/errors.js';
import { withModelRetry } from '../../models/retry.js';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../../models/types.js';
import { DEFAULT_MODEL_RETRY, type ModelRetryOptions } from './model-retry.js';

type StreamingModel = Model & Required<Pick<Model, 'stream'>>;

/**
 * Yields the deltas and tool calls of `model.stream` and returns the `finish` part's response.
 * A stream that ends without `finish` fails with a `ModelError`.
 */
export async function* streamWithRetry(options: {
  model: StreamingModel;
  request: ModelRequest;
  retry?: Required<ModelRetryOptions>;
  /** Called before each part is handed on (from then on, an error is no longer retried). */
  onPart?: () => void;
}): AsyncGenerator<ModelStreamPart, ModelResponse, undefined> {
  const { model, request } = options;
  const signal = request.signal;
  // Opening the stream and reading its first part is the attempt that may be retried.
  const opened = await withModelRetry({
    attempt: async () => {
      const iterator = model.stream(request, { signal })[Symbol.asyncIterator]();
      try {
        return { iterator, first: await iterator.next() };
      } catch (error) {
        await iterator.return?.();
        throw error;
      }
    },
    policy: options.retry ?? DEFAULT_MODEL_RETRY,
    signal,
  });
  const { iterator } = opened;
  let next = opened.first;
  try {
    while (!next.done) {
      const part = next.value;
      if (part.type === 'finish') return part.response;
      options.onPart?.();
      yield part;
      next = await iterator.next();
    }
  } finally {
    // The caller stopped early (or the finish came): close the provider's stream.
    await iterator.return?.();
  }
  throw new ModelError({
    kind: 'fatal',
    message: `${model.modelId}: the stream ended without a finish part`,
    modelId: model.modelId,
  });
}

export function canStream(model: Model): model is StreamingModel {
  return typeof model.stream === 'function';
}
