import { OrreryError } from '../events/errors.js';

const costMarker = 'orrery.error.CostModelError';
const costSymbol = Symbol.for(costMarker);

/** A cost-model input that cannot be priced: a negative count, a prefix longer than the request. */
export class CostModelError extends OrreryError {
  protected readonly [costSymbol] = true;
  /** The field at fault, e.g. `requests[3].sharedPrefixTokens`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value: unknown; message: string }) {
    super({
      name: 'CostModelError',
      message: `Invalid ${options.field}=${JSON.stringify(options.value)}: ${options.message}`,
    });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is CostModelError {
    return OrreryError.hasMarker(error, costMarker);
  }
}
