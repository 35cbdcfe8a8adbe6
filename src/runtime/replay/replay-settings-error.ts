import { OrreryError } from '../../events/errors.js';

const settingsMarker = 'orrery.error.ReplaySettingsError';
const settingsSymbol = Symbol.for(settingsMarker);

/**
 * Replay settings that cannot go together (a byte ceiling with compaction off). `field` is the
 * setting as the caller names it (`--max-request-bytes`, a request's `maxRequestBytes`): the CLI
 * answers a usage error (exit 2), the inspector's replay route a 400 naming it.
 */
export class ReplaySettingsError extends OrreryError {
  protected readonly [settingsSymbol] = true;
  readonly field: string;

  constructor(options: { field: string; message: string }) {
    super({ name: 'ReplaySettingsError', message: options.message });
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is ReplaySettingsError {
    return OrreryError.hasMarker(error, settingsMarker);
  }
}
