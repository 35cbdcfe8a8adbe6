import { OrreryError } from '../events/errors.js';

const overflowMarker = 'orrery.error.ContextOverflowError';
const overflowSymbol = Symbol.for(overflowMarker);

/**
 * A model call was rejected for size even after compacting with a smaller tail and retrying
 * once (or compaction is disabled), or the request could not be brought under `maxRequestBytes`
 * at all (it is never sent over it). `cause` is the provider's `ModelError`, when there is one.
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

const messageTooLargeMarker = 'orrery.error.MessageTooLargeError';
const messageTooLargeSymbol = Symbol.for(messageTooLargeMarker);

/**
 * The user's new message alone (with the system instruction and tools) is over a request
 * ceiling: `maxRequestBytes` or the model's context window. It is never summarized in the turn
 * it arrives in, so the turn fails before any model call. The message stays stored.
 */
export class MessageTooLargeError extends OrreryError {
  protected readonly [messageTooLargeSymbol] = true;
  readonly sessionId: string;
  /** The stored message's event. */
  readonly eventId: string;
  readonly seq: number;
  /** Which ceiling: request bytes or request tokens. */
  readonly unit: 'bytes' | 'tokens';
  /** The request's size with the message (and overhead), in `unit`. */
  readonly size: number;
  /** The ceiling, in `unit`. */
  readonly limit: number;

  constructor(options: {
    sessionId: string;
    eventId: string;
    seq: number;
    unit: 'bytes' | 'tokens';
    size: number;
    limit: number;
    ceiling: string;
  }) {
    const { unit, size, limit } = options;
    super({
      name: 'MessageTooLargeError',
      message: `The user's message (event ${options.eventId}, seq ${options.seq}) is too large: the request with it is ${size} ${unit}, over ${options.ceiling}=${limit} by ${size - limit} ${unit}. It is stored but was not sent; shorten it or raise ${options.ceiling}`,
    });
    this.sessionId = options.sessionId;
    this.eventId = options.eventId;
    this.seq = options.seq;
    this.unit = unit;
    this.size = size;
    this.limit = limit;
  }

  static override isInstance(error: unknown): error is MessageTooLargeError {
    return OrreryError.hasMarker(error, messageTooLargeMarker);
  }
}
