/**
 * Checks of the options every adapter takes (docs/architecture.md#edge): each bad one is an
 * `AdapterOptionError` naming the field and the value.
 */
import { AdapterOptionError } from './adapter-option-error.js';

/** A name option (app, user, agent, session): absent, or a non-empty string. */
export function checkName(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value === '')) {
    throw new AdapterOptionError({ field, value, message: 'expected a non-empty string' });
  }
}

/** The store: anything with the `SessionService` methods (checked by `appendEvent`). */
export function checkSessionService(options: { sessionService?: unknown } | undefined): void {
  const sessionService = options?.sessionService as { appendEvent?: unknown } | undefined;
  if (typeof sessionService?.appendEvent !== 'function') {
    throw new AdapterOptionError({
      field: 'sessionService',
      value: typeof sessionService,
      message: 'expected an orrery SessionService',
    });
  }
}

/** `compaction` must be given: a config, or `null` for none (never silently the environment). */
export function checkCompactionGiven(compaction: unknown): void {
  if (compaction === undefined) {
    throw new AdapterOptionError({
      field: 'compaction',
      value: undefined,
      message: 'expected a compaction config (createEventsCompactionConfig()) or null for none',
    });
  }
}
