import { OrreryError } from '../events/errors.js';
import { maskCredentials } from '../redaction/index.js';

const modelMarker = 'orrery.error.ModelError';
const modelSymbol = Symbol.for(modelMarker);

export type ModelErrorKind = 'context_overflow' | 'retryable' | 'fatal';

/**
 * A model call failed. `kind` tells the runtime what to do: compact and retry once on
 * `context_overflow`, back off on `retryable` (honouring `retryAfterMs`), give up on `fatal`.
 */
export class ModelError extends OrreryError {
  protected readonly [modelSymbol] = true;
  readonly kind: ModelErrorKind;
  readonly statusCode?: number;
  readonly retryAfterMs?: number;
  readonly modelId?: string;

  constructor(options: {
    kind: ModelErrorKind;
    message: string;
    statusCode?: number;
    retryAfterMs?: number;
    modelId?: string;
    cause?: unknown;
  }) {
    // Provider messages can quote the request URL, base URLs carry `user:password@`.
    super({ name: 'ModelError', message: maskCredentials(options.message), cause: options.cause });
    this.kind = options.kind;
    this.statusCode = options.statusCode;
    this.retryAfterMs = options.retryAfterMs;
    this.modelId = options.modelId;
  }

  static override isInstance(error: unknown): error is ModelError {
    return OrreryError.hasMarker(error, modelMarker);
  }
}

/** A `ModelError` saying the request was over the model's context window (compact, retry). */
export function isContextOverflowError(error: unknown): error is ModelError {
  return ModelError.isInstance(error) && error.kind === 'context_overflow';
}

const modelConfigMarker = 'orrery.error.ModelConfigError';
const modelConfigSymbol = Symbol.for(modelConfigMarker);

/**
 * A model could not be set up: a malformed `provider:model` id, an unknown provider, or a
 * missing or invalid environment variable. `variable` names what to fix, `value` what was seen.
 */
export class ModelConfigError extends OrreryError {
  protected readonly [modelConfigSymbol] = true;
  /** The setting or environment variable to fix, e.g. `OPENAI_API_KEY` or `modelId`. */
  readonly variable: string;
  readonly value?: string;

  constructor(options: { variable: string; message: string; value?: string; cause?: unknown }) {
    super({
      name: 'ModelConfigError',
      message: maskCredentials(options.message),
      cause: options.cause,
    });
    this.variable = options.variable;
    // The value of a base URL variable may hold a password.
    this.value = options.value === undefined ? undefined : maskCredentials(options.value);
  }

  static override isInstance(error: unknown): error is ModelConfigError {
    return OrreryError.hasMarker(error, modelConfigMarker);
  }
}
