import { OrreryError } from '../events/errors.js';

const configMarker = 'orrery.error.InvalidConfigError';
const configSymbol = Symbol.for(configMarker);

/** A configuration value (code option, environment variable or CLI flag) that is not valid. */
export class InvalidConfigError extends OrreryError {
  protected readonly [configSymbol] = true;
  /** The option or environment variable, e.g. `ORRERY_COMPACTION_TOKEN_THRESHOLD`. */
  readonly field: string;
  readonly value: unknown;

  constructor(options: { field: string; value: unknown; message: string }) {
    super({
      name: 'InvalidConfigError',
      message: `Invalid ${options.field}=${JSON.stringify(options.value)}: ${options.message}`,
    });
    this.field = options.field;
    this.value = options.value;
  }

  static override isInstance(error: unknown): error is InvalidConfigError {
    return OrreryError.hasMarker(error, configMarker);
  }
}
