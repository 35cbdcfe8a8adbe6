/** Errors of the ADK for TypeScript adapter: an option or an event it cannot use, naming it. */
import { OrreryError } from '../../events/errors.js';

const marker = 'orrery.error.AdkAdapterError';
const symbol = Symbol.for(marker);

/** An `OrreryAdkSessionService` option or a call's argument it cannot use. */
export class AdkAdapterError extends OrreryError {
  protected readonly [symbol] = true;
  /** e.g. `sessionService`, `event.isCompacted`, `session.id`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string; cause?: unknown }) {
    super({
      name: 'AdkAdapterError',
      message: `${options.field}: ${options.message}`,
      cause: options.cause,
    });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is AdkAdapterError {
    return OrreryError.hasMarker(error, marker);
  }
}
