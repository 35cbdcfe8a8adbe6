import { OrreryError } from '../events/errors.js';

const redactionMarker = 'orrery.error.RedactionError';
const redactionSymbol = Symbol.for(redactionMarker);

/**
 * A value redaction cannot walk: nested deeper than `MAX_JSON_DEPTH` (no store keeps it either).
 * Names the path where the limit was reached, never the value, which may hold what was to be
 * redacted.
 */
export class RedactionError extends OrreryError {
  protected readonly [redactionSymbol] = true;
  /** Where the walk stopped, e.g. `$.a[0].b`. */
  readonly path: string;
  readonly reason: 'too_deep';

  constructor(options: { path: string; reason: 'too_deep'; message: string; cause?: unknown }) {
    super({
      name: 'RedactionError',
      message: `${options.path}: ${options.message}`,
      cause: options.cause,
    });
    this.path = options.path;
    this.reason = options.reason;
  }

  static override isInstance(error: unknown): error is RedactionError {
    return OrreryError.hasMarker(error, redactionMarker);
  }
}
