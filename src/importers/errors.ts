import { OrreryError } from '../events/errors.js';

const importMarker = 'orrery.error.ImportError';
const importSymbol = Symbol.for(importMarker);

export interface ImportErrorOptions {
  message: string;
  /** The transcript's file name, when known (`importTranscripts` adds it). */
  file?: string;
  /** 1-based line of a JSONL file, when the problem is on one line. */
  line?: number;
  /** Where in the document, e.g. `messages[12].tool_calls[0].function.arguments`. */
  path?: string;
  format?: string;
  cause?: unknown;
}

/**
 * A transcript that cannot be imported: unreadable JSON, an unknown format, a message or line
 * without a field the format requires, an event the store would refuse. Names the file, the
 * line (JSONL) or the message index, and the field.
 */
export class ImportError extends OrreryError {
  protected readonly [importSymbol] = true;
  readonly file?: string;
  readonly line?: number;
  readonly path?: string;
  readonly format?: string;
  /** The message without the file and position: `withFile` builds on it. */
  readonly detail: string;

  constructor(options: ImportErrorOptions) {
    const where = [
      options.file,
      options.line === undefined ? undefined : `line ${options.line}`,
      options.path,
    ].filter((part) => part !== undefined);
    super({
      name: 'ImportError',
      message: where.length > 0 ? `${where.join(', ')}: ${options.message}` : options.message,
      cause: options.cause,
    });
    this.file = options.file;
    this.line = options.line;
    this.path = options.path;
    this.format = options.format;
    this.detail = options.message;
  }

  /** The same error naming `file` (unchanged when its message names it already). */
  withFile(file: string | undefined): ImportError {
    if (file === undefined || this.file !== undefined || this.detail.includes(file)) return this;
    return new ImportError({
      message: this.detail,
      file,
      line: this.line,
      path: this.path,
      format: this.format,
      cause: this.cause,
    });
  }

  static override isInstance(error: unknown): error is ImportError {
    return OrreryError.hasMarker(error, importMarker);
  }
}
