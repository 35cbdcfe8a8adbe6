/**
 * Typed errors of the streaming read path (`line-reader.ts`, `json-array-splitter.ts`): a record
 * too large to hold, and JSON text that ends or breaks before its top-level array closes. Both
 * are `ImportError`s (so the CLI reports them as any import failure) naming the byte offset.
 */
import { OrreryError } from '../events/errors.js';
import { ImportError } from './errors.js';

const recordTooLargeMarker = 'orrery.error.RecordTooLargeError';
const recordTooLargeSymbol = Symbol.for(recordTooLargeMarker);

/** Default largest record (a JSONL line, a JSON array element) the streaming read path holds. */
export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024;

/**
 * A record (a JSONL line, an element of a top-level JSON array) larger than `maxRecordBytes`:
 * refused before it is held whole, so a huge or newline-free file is an error, never an
 * out-of-memory. Names the line (JSONL) or the element index, and the byte offset it starts at.
 */
export class RecordTooLargeError extends ImportError {
  protected readonly [recordTooLargeSymbol] = true;
  /** Byte offset in the file where the record starts. */
  readonly offset: number;
  readonly maxRecordBytes: number;
  /** Index of the array element, for a JSON array. */
  readonly element?: number;

  constructor(options: {
    offset: number;
    maxRecordBytes: number;
    line?: number;
    element?: number;
    file?: string;
    format?: string;
  }) {
    const what = options.element === undefined ? 'the record' : `array element ${options.element}`;
    super({
      message: `${what} starting at byte ${options.offset} is larger than ${describeBytes(options.maxRecordBytes)}, the most a record may hold (maxRecordBytes)`,
      line: options.line,
      file: options.file,
      format: options.format,
    });
    this.name = 'RecordTooLargeError';
    this.offset = options.offset;
    this.maxRecordBytes = options.maxRecordBytes;
    this.element = options.element;
  }

  static override isInstance(error: unknown): error is RecordTooLargeError {
    return OrreryError.hasMarker(error, recordTooLargeMarker);
  }
}

const jsonStreamMarker = 'orrery.error.JsonStreamError';
const jsonStreamSymbol = Symbol.for(jsonStreamMarker);

/**
 * A top-level JSON array that is cut short (the file ends inside it) or holds a byte where none
 * may be (`[1 2]`, text after the closing `]`). Names the byte offset.
 */
export class JsonStreamError extends ImportError {
  protected readonly [jsonStreamSymbol] = true;
  /** Byte offset of the problem: the unexpected byte, or the end of a truncated input. */
  readonly offset: number;

  constructor(options: { message: string; offset: number; file?: string; format?: string }) {
    super({
      message: `byte ${options.offset}: ${options.message}`,
      file: options.file,
      format: options.format,
    });
    this.name = 'JsonStreamError';
    this.offset = options.offset;
  }

  static override isInstance(error: unknown): error is JsonStreamError {
    return OrreryError.hasMarker(error, jsonStreamMarker);
  }
}

function describeBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return mebibytes >= 1 && Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}
