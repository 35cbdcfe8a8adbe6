/** Errors of the OpenAI Agents adapter: an option or an argument it cannot use, naming it. */
import { OrreryError } from '../../events/errors.js';

const marker = 'orrery.error.OpenAIAgentsAdapterError';
const symbol = Symbol.for(marker);

/** An `OrreryAgentsSession` option or a call's argument the session cannot use. */
export class OpenAIAgentsAdapterError extends OrreryError {
  protected readonly [symbol] = true;
  /** e.g. `sessionId`, `items[3]`, `limit`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value?: unknown; message: string }) {
    super({ name: 'OpenAIAgentsAdapterError', message: `${options.field}: ${options.message}` });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is OpenAIAgentsAdapterError {
    return OrreryError.hasMarker(error, marker);
  }
}
