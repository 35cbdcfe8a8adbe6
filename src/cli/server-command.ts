/**
 * What `orrery serve` and `orrery inspect` share, in a module of its own so that `inspect` does
 * not load `serve`'s agent and model modules.
 */
import { ServeConfigError } from '../server/errors.js';
import { CliUsageError } from './errors.js';
import type { CliIo, InterruptSignal } from './io.js';

/** A server setting error is a usage error (exit 2) that names the flag or variable. */
export function asUsageError(error: unknown): unknown {
  if (!ServeConfigError.isInstance(error)) return error;
  return new CliUsageError({ field: error.field, message: error.message, cause: error });
}

/** The first SIGTERM or SIGINT; a second one kills as usual. */
export function untilInterrupted(io: CliIo): Promise<InterruptSignal> {
  return new Promise((resolve) => {
    const unsubscribe = io.onInterrupt?.((signal) => {
      unsubscribe?.();
      resolve(signal);
    });
  });
}
