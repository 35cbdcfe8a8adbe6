import { OrreryError } from '../events/errors.js';

const importMarker = 'orrery.error.ImportError';
const importSymbol = Symbol.for(importMarker);

/**
 * A transcript that cannot be imported: unreadable JSON, an unknown format, a message or line
 * without a field the format requires. Names the line (JSONL) or the message index and field.
 */
export class ImportError extends OrreryError {
  protected readonly [importSymbol] = true;
  /** 1-based line of a JSONL file, when the problem is on one line. */
  readonly line?: number;
  /** Where in the document, e.g. `messages[12].tool_calls[0].function.arguments`. */
  readonly path?: string;
  readonly format?: string;

  constructor(options: {
    message: string;
    line?: number;
    path?: string;
    format?: string;
    cause?: unknown;
  }) {
    const where = [
      options.line === undefined ? undefined : `line ${options.line}`,
      options.path,
    ].filter((part) => part !== undefined);
    super({
      name: 'ImportError',
      message: where.length > 0 ? `${where.join(', ')}: ${options.message}` : options.message,
      cause: options.cause,
    });
    this.line = options.line;
    this.path = options.path;
    this.format = options.format;
  }

  static override isInstance(error: unknown): error is ImportError {
    return OrreryError.hasMarker(error, importMarker);
  }
}
