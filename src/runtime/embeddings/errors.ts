import { InvalidArgumentError, OrreryError } from '../../events/errors.js';

const embeddingMarker = 'orrery.error.EmbeddingError';
const embeddingSymbol = Symbol.for(embeddingMarker);

/**
 * Why the vector half of a search gave nothing: the caller's signal, the call's timeout, the
 * provider's error, an answer of the wrong shape, or the index (or the store read feeding it).
 */
export type EmbeddingFailureReason =
  | 'aborted'
  | 'timeout'
  | 'provider_error'
  | 'invalid_response'
  | 'index_error';

/**
 * The vector half of a search failed (an embedding call, or the index). `withEmbeddingSearch` never throws it: the search falls back to
 * the store's lexical hits and hands this to `onEmbeddingError`. Its message and `cause` have
 * credentials masked (`maskCredentials`).
 */
export class EmbeddingError extends OrreryError {
  protected readonly [embeddingSymbol] = true;
  readonly reason: EmbeddingFailureReason;
  /** The embedding model's provider and id, e.g. `openai.embedding` and `text-embedding-3-small`. */
  readonly provider: string;
  readonly modelId: string;

  constructor(options: {
    reason: EmbeddingFailureReason;
    provider: string;
    modelId: string;
    message: string;
    cause?: unknown;
  }) {
    super({ name: 'EmbeddingError', message: options.message, cause: options.cause });
    this.reason = options.reason;
    this.provider = options.provider;
    this.modelId = options.modelId;
  }

  static override isInstance(error: unknown): error is EmbeddingError {
    return OrreryError.hasMarker(error, embeddingMarker);
  }
}

/** `value`, or `fallback` when absent; an `InvalidArgumentError` naming `argument` unless a positive integer. */
export function positiveInteger(
  argument: string,
  value: number | undefined,
  fallback: number,
): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new InvalidArgumentError({
      argument,
      message: `must be a positive integer, got ${value}`,
      value,
    });
  }
  return resolved;
}
