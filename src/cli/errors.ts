import { OrreryError } from '../events/errors.js';
import { maskCredentials } from '../redaction/index.js';

const usageMarker = 'orrery.error.CliUsageError';
const usageSymbol = Symbol.for(usageMarker);

/** A command line that cannot run as given (bad flag value, missing setting): exit code 2. */
export class CliUsageError extends OrreryError {
  protected readonly [usageSymbol] = true;
  readonly field?: string;

  constructor(options: { message: string; field?: string; cause?: unknown }) {
    super({ name: 'CliUsageError', message: options.message, cause: options.cause });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is CliUsageError {
    return OrreryError.hasMarker(error, usageMarker);
  }
}

/**
 * One clear line for any error: the typed name and message, and the cause's when it helps.
 * Credentials are masked (a store's or a model's URL, a key quoted by a provider).
 */
export function formatError(error: unknown): string {
  if (error instanceof Error) {
    const cause =
      error.cause instanceof Error && !error.message.includes(error.cause.message)
        ? ` (${error.cause.message})`
        : '';
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    return maskCredentials(`${name}${error.message}${cause}`.replace(/\s*\n\s*/g, ' '));
  }
  return maskCredentials(String(error));
}

const chatMarker = 'orrery.error.ChatTurnsFailedError';
const chatSymbol = Symbol.for(chatMarker);

/** `orrery chat` fed from a pipe: some messages got no answer (exit code 1). */
export class ChatTurnsFailedError extends OrreryError {
  protected readonly [chatSymbol] = true;

  constructor(options: { message: string; cause?: unknown }) {
    super({ name: 'ChatTurnsFailedError', message: options.message, cause: options.cause });
  }

  static override isInstance(error: unknown): error is ChatTurnsFailedError {
    return OrreryError.hasMarker(error, chatMarker);
  }
}
