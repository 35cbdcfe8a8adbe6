/**
 * The one error every adapter throws for an option or a call's argument it cannot use
 * (docs/architecture.md#the-adapter-core): the field and the value named, as the edge's other
 * typed errors do. The four per-adapter names (`AiSdkAdapterError`, `LangChainAdapterError`,
 * `OpenAIAgentsAdapterError`, `AdkAdapterError`) are deprecated aliases of this class.
 */
import { OrreryError } from '../../events/errors.js';

const marker = 'orrery.error.AdapterOptionError';
const symbol = Symbol.for(marker);

/** An adapter option, or a framework call's argument, the adapter cannot use. */
export class AdapterOptionError extends OrreryError {
  protected readonly [symbol] = true;
  /** e.g. `sessionService`, `config.configurable.thread_id`, `items[3]`, `event.isCompacted`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string; cause?: unknown }) {
    super({
      name: 'AdapterOptionError',
      message: `${options.field}: ${options.message}`,
      cause: options.cause,
    });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is AdapterOptionError {
    return OrreryError.hasMarker(error, marker);
  }
}
