import { OrreryError } from '../events/errors.js';

export type SummarizerErrorReason = 'model_error' | 'timeout' | 'empty' | 'blocked' | 'aborted';

const summarizerMarker = 'orrery.error.SummarizerError';
const summarizerSymbol = Symbol.for(summarizerMarker);

/**
 * A summarizer could not produce a summary. The compaction is skipped and retried at the next
 * trigger: a failed, empty or blocked answer is never written in as a summary.
 */
export class SummarizerError extends OrreryError {
  protected readonly [summarizerSymbol] = true;
  readonly reason: SummarizerErrorReason;
  /** The summarizer's name (model id or `digest`). */
  readonly summarizer: string;

  constructor(options: {
    reason: SummarizerErrorReason;
    summarizer: string;
    message: string;
    cause?: unknown;
  }) {
    super({
      name: 'SummarizerError',
      message: `Summarizer '${options.summarizer}' failed (reason=${options.reason}): ${options.message}`,
      cause: options.cause,
    });
    this.reason = options.reason;
    this.summarizer = options.summarizer;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return OrreryError.hasMarker(error, summarizerMarker);
  }
}
