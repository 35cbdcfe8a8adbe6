import { OrreryError } from '../events/errors.js';

const overflowMarker = 'orrery.error.ContextOverflowError';
const overflowSymbol = Symbol.for(overflowMarker);

/**
 * A model call was rejected for size even after compacting with a smaller tail and retrying
 * once (or compaction is disabled). `cause` is the provider's `ModelError`.
 */
export class ContextOverflowError extends OrreryError {
  protected readonly [overflowSymbol] = true;
  readonly sessionId: string;
  readonly agentName: string;
  /** Whether a compaction was attempted before giving up. */
  readonly compacted: boolean;

  constructor(options: {
    sessionId: string;
    agentName: string;
    compacted: boolean;
    message: string;
    cause?: unknown;
  }) {
    super({ name: 'ContextOverflowError', message: options.message, cause: options.cause });
    this.sessionId = options.sessionId;
    this.agentName = options.agentName;
    this.compacted = options.compacted;
  }

  static override isInstance(error: unknown): error is ContextOverflowError {
    return OrreryError.hasMarker(error, overflowMarker);
  }
}

const configMarker = 'orrery.error.RunnerConfigError';
const configSymbol = Symbol.for(configMarker);

/** The Runner (or an agent or tool) was built with options that cannot work. Names the field. */
export class RunnerConfigError extends OrreryError {
  protected readonly [configSymbol] = true;
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string }) {
    super({ name: 'RunnerConfigError', message: `${options.field}: ${options.message}` });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is RunnerConfigError {
    return OrreryError.hasMarker(error, configMarker);
  }
}

const maxStepsMarker = 'orrery.error.MaxStepsExceededError';
const maxStepsSymbol = Symbol.for(maxStepsMarker);

/** An agent's tool loop ran `maxSteps` model calls and the model still asked for tools. */
export class MaxStepsExceededError extends OrreryError {
  protected readonly [maxStepsSymbol] = true;
  readonly agentName: string;
  readonly maxSteps: number;

  constructor(options: { agentName: string; maxSteps: number }) {
    super({
      name: 'MaxStepsExceededError',
      message: `Agent '${options.agentName}' reached maxSteps=${options.maxSteps} model calls and the model still requested tools`,
    });
    this.agentName = options.agentName;
    this.maxSteps = options.maxSteps;
  }

  static override isInstance(error: unknown): error is MaxStepsExceededError {
    return OrreryError.hasMarker(error, maxStepsMarker);
  }
}
