/** Errors of the AI SDK adapter: a call or an option it cannot use, naming the field. */
import { OrreryError } from '../../events/errors.js';

const marker = 'orrery.error.AiSdkAdapterError';
const symbol = Symbol.for(marker);

/** A middleware option or a call's `providerOptions.orrery` the adapter cannot use. */
export class AiSdkAdapterError extends OrreryError {
  protected readonly [symbol] = true;
  /** e.g. `providerOptions.orrery.conversationId`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string }) {
    super({ name: 'AiSdkAdapterError', message: `${options.field}: ${options.message}` });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is AiSdkAdapterError {
    return OrreryError.hasMarker(error, marker);
  }
}
