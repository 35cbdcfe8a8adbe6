/**
 * The byte-level pieces the two streaming JSON splitters share (`json-array-splitter.ts`,
 * `json-object-splitter.ts`): a scanner that finds where one JSON value ends (strings and escapes
 * skipped, object and array depth counted), the bytes of the value being read held up to
 * `maxRecordBytes`, and the error for a byte that cannot be where it is. Works on bytes: every
 * byte it looks for is ASCII, and UTF-8 never uses an ASCII byte inside a multi-byte character.
 * See docs/architecture.md#edge (importers).
 */
import { JsonStreamError, RecordTooLargeError } from './stream-errors.js';

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

export function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Finds where a JSON value ends, scanning chunk by chunk (its state carries over between chunks);
 * the value's own syntax is left to `JSON.parse`. The loop runs here, over the chunk, rather than
 * a call a byte: the scan is the import's hot path.
 */
export class JsonValueScanner {
  private readonly closer: number;
  private depth = 0;
  private escaped = false;
  /** Inside a string: a truncated input ends there. */
  inString = false;

  /** `closer`: the closing byte of the container the values stand in (`]` or `}`). */
  constructor(options: { closer: number }) {
    this.closer = options.closer;
  }

  /** Starts a value at its first byte (then scan from the byte after it). */
  begin(byte: number): void {
    this.depth = byte === OPEN_BRACE || byte === OPEN_BRACKET ? 1 : 0;
    this.inString = byte === QUOTE;
    this.escaped = false;
  }

  /** Starts just inside a string (a member name, its opening quote read). */
  beginString(): void {
    this.depth = 0;
    this.inString = true;
    this.escaped = false;
  }

  /**
   * The index of the byte that ends the value (a `,`, the container's closing byte or whitespace
   * at depth 0: not part of the value), or `chunk.length` when the chunk ends first.
   */
  findEnd(chunk: Uint8Array, from: number): number {
    for (let index = from; index < chunk.length; index++) {
      if (this.inString) {
        index = this.findStringEnd(chunk, index);
        continue;
      }
      const byte = chunk[index] as number;
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && this.depth > 0) this.depth--;
      else if (this.depth === 0 && (byte === COMMA || byte === this.closer || isWhitespace(byte))) {
        return index;
      }
    }
    return chunk.length;
  }

  /** Inside a string: the index of its closing quote, or `chunk.length` when the chunk ends first. */
  findStringEnd(chunk: Uint8Array, from: number): number {
    for (let index = from; index < chunk.length; index++) {
      const byte = chunk[index] as number;
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) {
        this.inString = false;
        return index;
      }
    }
    return chunk.length;
  }
}

export interface HeldBytesOptions {
  maxRecordBytes: number;
  /** Named in errors. */
  fileName?: string;
  format?: string;
}

/**
 * The bytes of the value being read, gathered across chunks; more than `maxRecordBytes` is a
 * `RecordTooLargeError` naming where the value starts, before it is held whole.
 */
export class HeldBytes {
  private readonly options: HeldBytesOptions;
  private pieces: Uint8Array[] = [];
  private held = 0;
  private element?: number;
  /** Byte offset of the value's first byte. */
  offset = 0;

  constructor(options: HeldBytesOptions) {
    this.options = options;
  }

  /** Starts a value at byte `offset`; `element`: its array index, named in the error. */
  begin(options: { offset: number; element?: number }): void {
    this.offset = options.offset;
    this.element = options.element;
    this.pieces = [];
    this.held = 0;
  }

  add(piece: Uint8Array): void {
    this.held += piece.length;
    if (this.held > this.options.maxRecordBytes) {
      throw new RecordTooLargeError({
        offset: this.offset,
        maxRecordBytes: this.options.maxRecordBytes,
        element: this.element,
        file: this.options.fileName,
        format: this.options.format,
      });
    }
    this.pieces.push(piece);
  }

  /** The value's bytes, whole; the holder is empty again. */
  take(): Uint8Array {
    let bytes: Uint8Array;
    if (this.pieces.length === 1) bytes = this.pieces[0] as Uint8Array;
    else {
      bytes = new Uint8Array(this.held);
      let offset = 0;
      for (const piece of this.pieces) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
    }
    this.pieces = [];
    this.held = 0;
    return bytes;
  }
}

/** A byte that cannot be where it is: names it (printable, or in hex) and what was expected. */
export function unexpectedByte(options: {
  byte: number;
  offset: number;
  expected: string;
  fileName?: string;
  format?: string;
}): JsonStreamError {
  const { byte } = options;
  const shown =
    byte >= 0x20 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `0x${byte.toString(16)}`;
  return new JsonStreamError({
    message: `expected ${options.expected}, found ${shown}`,
    offset: options.offset,
    file: options.fileName,
    format: options.format,
  });
}

/** A splitter's parts, read from `source` chunk by chunk; `end` checks the input closed. */
export async function* splitChunks<Part>(options: {
  splitter: { push(chunk: Uint8Array): Part[]; end(): void };
  source: AsyncIterable<Uint8Array>;
  signal?: AbortSignal;
}): AsyncGenerator<Part> {
  for await (const chunk of options.source) {
    options.signal?.throwIfAborted();
    yield* options.splitter.push(chunk);
  }
  options.splitter.end();
}
