/** Errors of the LangChain adapter: an option or an argument it cannot use, naming it. */
import { OrreryError } from '../../events/errors.js';

const marker = 'orrery.error.LangChainAdapterError';
const symbol = Symbol.for(marker);

/** A middleware option or a request the middleware cannot use. */
export class LangChainAdapterError extends OrreryError {
  protected readonly [symbol] = true;
  /** e.g. `threadId`, `config.configurable.thread_id`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string }) {
    super({ name: 'LangChainAdapterError', message: `${options.field}: ${options.message}` });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is LangChainAdapterError {
    return OrreryError.hasMarker(error, marker);
  }
}
