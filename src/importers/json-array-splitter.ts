/**
 * A top-level JSON array read from a byte stream one element at a time: a byte scanner (strings
 * and escapes skipped, object and array depth counted) finds where each element ends, so only
 * the element being read is held (up to `maxRecordBytes`), never the document. The elements'
 * own syntax is left to `JSON.parse`. Works on bytes: every byte the scanner looks for is ASCII,
 * and UTF-8 never uses an ASCII byte inside a multi-byte character. See
 * docs/architecture.md#edge (importers).
 */
import { DEFAULT_MAX_RECORD_BYTES, JsonStreamError, RecordTooLargeError } from './stream-errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

export interface ArrayElement {
  /** 0-based index in the array. */
  index: number;
  /** Byte offset of the element's first byte. */
  offset: number;
  /** The element's JSON text, as bytes. */
  bytes: Uint8Array;
}

type Phase =
  /** Before the `[` (a byte-order mark and whitespace allowed). */
  | 'start'
  /** After `[`: an element or `]`. */
  | 'first'
  /** After `,`: an element. */
  | 'next'
  /** Inside an element. */
  | 'element'
  /** After an element: `,` or `]`. */
  | 'separator'
  /** After the closing `]`: whitespace only. */
  | 'done';

export interface JsonArraySplitterOptions {
  /** Largest element held, in bytes (default 64 MiB). */
  maxRecordBytes?: number;
  /**
   * An array inside a document (`json-object-splitter.ts`): it stops at its closing `]` and sets
   * `endIndex`, leaving what follows to the caller. `startOffset`: the file offset of the first
   * byte it is fed.
   */
  nested?: boolean;
  startOffset?: number;
  /** Named in errors. */
  fileName?: string;
  format?: string;
}

/**
 * Feed it chunks with `push` (each returns the elements completed by that chunk), then call
 * `end`: it throws a `JsonStreamError` naming the byte offset when the input stopped inside the
 * array. A byte that cannot be where it is (outside an element) is a `JsonStreamError` too.
 */
export class JsonArraySplitter {
  private readonly maxRecordBytes: number;
  private readonly fileName?: string;
  private readonly format?: string;
  private phase: Phase = 'start';
  private position = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private elementIndex = 0;
  private elementStart = 0;
  private pieces: Uint8Array[] = [];
  private held = 0;
  /** Bytes of a leading UTF-8 byte-order mark still to skip. */
  private bomBytes = 0;
  private readonly nested: boolean;
  /** Nested: index in the last chunk just past the closing `]`, once it was read. */
  endIndex?: number;

  constructor(options: JsonArraySplitterOptions = {}) {
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.nested = options.nested === true;
    this.position = options.startOffset ?? 0;
    this.fileName = options.fileName;
    this.format = options.format;
  }

  push(chunk: Uint8Array): ArrayElement[] {
    const elements: ArrayElement[] = [];
    let pieceStart = this.phase === 'element' ? 0 : -1;
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index] as number;
      const offset = this.position + index;
      if (this.phase === 'element') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) this.inString = false;
          continue;
        }
        if (byte === QUOTE) this.inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
        else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && this.depth > 0) this.depth--;
        else if (
          this.depth === 0 &&
          (byte === COMMA || byte === CLOSE_BRACKET || isWhitespace(byte))
        ) {
          elements.push(this.completeElement(chunk.subarray(pieceStart, index)));
          pieceStart = -1;
          this.phase = 'separator';
          this.separator(byte, offset);
          // `separator` may have moved the phase on (TypeScript keeps the narrowed one).
          if (this.nested && (this.phase as Phase) === 'done') {
            this.endIndex = index + 1;
            break;
          }
        }
        continue;
      }
      if (!this.nested && this.skipBom(byte, offset)) continue;
      if (isWhitespace(byte)) continue;
      switch (this.phase) {
        case 'start':
          if (byte !== OPEN_BRACKET) throw this.unexpected(byte, offset, 'a `[` (a JSON array)');
          this.phase = 'first';
          break;
        case 'first':
        case 'next':
          if (byte === CLOSE_BRACKET && this.phase === 'first') {
            this.phase = 'done';
            break;
          }
          if (byte === COMMA || byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
            throw this.unexpected(byte, offset, 'an array element');
          }
          this.startElement(byte, offset);
          pieceStart = index;
          break;
        case 'separator':
          this.separator(byte, offset);
          break;
        case 'done':
          throw this.unexpected(byte, offset, 'nothing after the closing `]`');
      }
      if (this.nested && this.phase === 'done') {
        this.endIndex = index + 1;
        break;
      }
    }
    if (this.phase === 'element' && pieceStart >= 0) {
      // Copied: a stream may reuse its chunk's memory for the next one.
      this.hold(chunk.slice(pieceStart));
    }
    this.position += chunk.length;
    return elements;
  }

  /** The input is over: throws unless the array closed. */
  end(): void {
    if (this.phase === 'done') return;
    const expected =
      this.phase === 'start'
        ? 'a `[` (a JSON array)'
        : this.phase === 'element' && this.inString
          ? 'the end of a string'
          : 'the rest of the array (it was never closed with `]`)';
    throw new JsonStreamError({
      message: `the input ends before ${expected}: it is truncated`,
      offset: this.position,
      file: this.fileName,
      format: this.format,
    });
  }

  private skipBom(byte: number, offset: number): boolean {
    if (offset === 0 && byte === 0xef) {
      this.bomBytes = 2;
      return true;
    }
    if (this.bomBytes > 0 && offset <= 2) {
      this.bomBytes--;
      return true;
    }
    return false;
  }

  private startElement(byte: number, offset: number): void {
    this.phase = 'element';
    this.elementStart = offset;
    this.depth = byte === OPEN_BRACE || byte === OPEN_BRACKET ? 1 : 0;
    this.inString = byte === QUOTE;
    this.escaped = false;
    this.pieces = [];
    this.held = 0;
  }

  private separator(byte: number, offset: number): void {
    if (isWhitespace(byte)) return;
    if (byte === COMMA) this.phase = 'next';
    else if (byte === CLOSE_BRACKET) this.phase = 'done';
    else throw this.unexpected(byte, offset, 'a `,` or the closing `]`');
  }

  private hold(piece: Uint8Array): void {
    this.held += piece.length;
    if (this.held > this.maxRecordBytes) {
      throw new RecordTooLargeError({
        offset: this.elementStart,
        maxRecordBytes: this.maxRecordBytes,
        element: this.elementIndex,
        file: this.fileName,
        format: this.format,
      });
    }
    this.pieces.push(piece);
  }

  private completeElement(last: Uint8Array): ArrayElement {
    this.hold(last);
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
    const element = { index: this.elementIndex++, offset: this.elementStart, bytes };
    this.pieces = [];
    this.held = 0;
    return element;
  }

  private unexpected(byte: number, offset: number, expected: string): JsonStreamError {
    const shown =
      byte >= 0x20 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `0x${byte.toString(16)}`;
    return new JsonStreamError({
      message: `expected ${expected}, found ${shown}`,
      offset,
      file: this.fileName,
      format: this.format,
    });
  }
}

/** The elements of a top-level JSON array streamed from `source`, one at a time. */
export async function* splitJsonArray(
  options: JsonArraySplitterOptions & { source: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): AsyncGenerator<ArrayElement> {
  const splitter = new JsonArraySplitter(options);
  for await (const chunk of options.source) {
    options.signal?.throwIfAborted();
    yield* splitter.push(chunk);
  }
  splitter.end();
}
