/**
 * Texts to unit vectors through an AI SDK embedding model (`EmbeddingModelV3.doEmbed`, called
 * directly as `ai`'s `embedMany` does, so `ai` stays an optional peer): in batches of at most
 * `maxEmbeddingsPerCall`, one call at a time, each ending on the caller's signal or a timeout.
 * Every failure is an `EmbeddingError` with credentials masked.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { maskLogValue } from '../../observability/masked-logger.js';
import { maskCredentials } from '../../redaction/index.js';
import { errorMessage } from '../../util/error-message.js';
import { EmbeddingError, type EmbeddingFailureReason } from './errors.js';

export interface EmbedTextsOptions {
  model: EmbeddingModelV3;
  texts: readonly string[];
  /** Values per `doEmbed` call. */
  maxEmbeddingsPerCall: number;
  /** Each call ends after this many ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** `vector` scaled to length 1; `undefined` for a zero or non-finite vector (it matches nothing). */
export function normalizeVector(vector: readonly number[]): Float32Array | undefined {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const length = Math.sqrt(sum);
  if (!Number.isFinite(length) || length === 0) return undefined;
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = (vector[index] ?? 0) / length;
  return unit;
}

function failure(
  model: EmbeddingModelV3,
  reason: EmbeddingFailureReason,
  message: string,
  cause?: unknown,
): EmbeddingError {
  return new EmbeddingError({
    reason,
    provider: model.provider,
    modelId: model.modelId,
    message: maskCredentials(message),
    cause: cause === undefined ? undefined : maskLogValue(cause),
  });
}

/** One `doEmbed` call, ended by `signal` or after `timeoutMs` (a timer, so fake timers drive it). */
async function embedBatch(
  options: EmbedTextsOptions,
  values: string[],
): Promise<Array<Float32Array | undefined>> {
  const { model, signal } = options;
  if (signal?.aborted) throw failure(model, 'aborted', 'embedding aborted by the caller');
  const controller = new AbortController();
  let reason: EmbeddingFailureReason | undefined;
  const onAbort = () => {
    reason = 'aborted';
    controller.abort(signal?.reason);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let rejectEnded: (error: unknown) => void = () => {};
  const ended = new Promise<never>((_resolve, reject) => {
    rejectEnded = reject;
  });
  const endCall = () => rejectEnded(controller.signal.reason);
  controller.signal.addEventListener('abort', endCall, { once: true });
  const timer = setTimeout(() => {
    reason = 'timeout';
    controller.abort(new Error(`embedding timed out after ${options.timeoutMs} ms`));
  }, options.timeoutMs);
  try {
    // Raced with the abort: a provider that ignores its signal must not hold the search.
    const result = await Promise.race([
      Promise.resolve(model.doEmbed({ values, abortSignal: controller.signal })),
      ended,
    ]);
    if (!Array.isArray(result?.embeddings) || result.embeddings.length !== values.length) {
      throw failure(
        model,
        'invalid_response',
        `embedding model returned ${result?.embeddings?.length} vectors for ${values.length} texts`,
      );
    }
    return result.embeddings.map((vector) => normalizeVector(vector));
  } catch (error) {
    if (EmbeddingError.isInstance(error)) throw error;
    if (reason === 'aborted') throw failure(model, 'aborted', 'embedding aborted by the caller');
    if (reason === 'timeout') {
      throw failure(model, 'timeout', `embedding timed out after ${options.timeoutMs} ms`);
    }
    throw failure(model, 'provider_error', `embedding failed: ${errorMessage(error)}`, error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    controller.signal.removeEventListener('abort', endCall);
    // The race's loser must not surface as an unhandled rejection.
    ended.catch(() => {});
  }
}

/** One unit vector per text, in order (`undefined` where the model gave a zero vector). */
export async function embedTexts(
  options: EmbedTextsOptions,
): Promise<Array<Float32Array | undefined>> {
  const vectors: Array<Float32Array | undefined> = [];
  for (let start = 0; start < options.texts.length; start += options.maxEmbeddingsPerCall) {
    const values = options.texts.slice(start, start + options.maxEmbeddingsPerCall);
    vectors.push(...(await embedBatch(options, values)));
  }
  return vectors;
}
