/**
 * SIGINT and SIGTERM during a command that writes: the command's AbortSignal aborts with an
 * `InterruptedError`, so the write in progress is rolled back and the process exits with that
 * error's one line. Only the first signal is handled; a second one kills as usual.
 */
import { OrreryError } from '../events/errors.js';
import type { CliIo, InterruptSignal } from './io.js';

const interruptedMarker = 'orrery.error.InterruptedError';
const interruptedSymbol = Symbol.for(interruptedMarker);

/** The command was stopped by a signal; what it was writing was rolled back. Exit code 1. */
export class InterruptedError extends OrreryError {
  protected readonly [interruptedSymbol] = true;
  readonly signal: InterruptSignal;

  constructor(options: { signal: InterruptSignal; message: string }) {
    super({ name: 'InterruptedError', message: options.message });
    this.signal = options.signal;
  }

  static override isInstance(error: unknown): error is InterruptedError {
    return OrreryError.hasMarker(error, interruptedMarker);
  }
}

/**
 * An AbortSignal that aborts on the first SIGINT or SIGTERM, with `describe(signal)` as the
 * error's message. `dispose()` stops listening (call it when the command ends).
 */
export function abortOnInterrupt(
  io: CliIo,
  describe: (signal: InterruptSignal) => string,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const unsubscribe = io.onInterrupt?.((signal) => {
    unsubscribe?.();
    controller.abort(new InterruptedError({ signal, message: describe(signal) }));
  });
  return { signal: controller.signal, dispose: () => unsubscribe?.() };
}
