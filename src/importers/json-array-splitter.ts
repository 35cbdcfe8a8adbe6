/**
 * A top-level JSON array read from a byte stream one element at a time: a byte scanner (strings
 * and escapes skipped, object and array depth counted) finds where each element ends, so only
 * the element being read is held (up to `maxRecordBytes`), never the document. The elements'
 * own syntax is left to `JSON.parse`. The scanner is shared with the object splitter
 * (`json-byte-scanner.ts`). See docs/architecture.md#edge (importers).
 */
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  HeldBytes,
  isWhitespace,
  JsonValueScanner,
  OPEN_BRACKET,
  splitChunks,
  unexpectedByte,
} from './json-byte-scanner.js';
import { DEFAULT_MAX_RECORD_BYTES, JsonStreamError } from './stream-errors.js';

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
  private readonly fileName?: string;
  private readonly format?: string;
  private readonly scanner = new JsonValueScanner({ closer: CLOSE_BRACKET });
  private readonly element: HeldBytes;
  private phase: Phase = 'start';
  private position = 0;
  private elementIndex = 0;
  /** Bytes of a leading UTF-8 byte-order mark still to skip. */
  private bomBytes = 0;
  private readonly nested: boolean;
  /** Nested: index in the last chunk just past the closing `]`, once it was read. */
  endIndex?: number;

  constructor(options: JsonArraySplitterOptions = {}) {
    this.element = new HeldBytes({
      maxRecordBytes: options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES,
      fileName: options.fileName,
      format: options.format,
    });
    this.nested = options.nested === true;
    this.position = options.startOffset ?? 0;
    this.fileName = options.fileName;
    this.format = options.format;
  }

  push(chunk: Uint8Array): ArrayElement[] {
    const elements: ArrayElement[] = [];
    let pieceStart = this.phase === 'element' ? 0 : -1;
    for (let index = 0; index < chunk.length; index++) {
      if (this.phase === 'element') {
        index = this.scanner.findEnd(chunk, index);
        if (index === chunk.length) break;
        elements.push(this.completeElement(chunk.subarray(pieceStart, index)));
        pieceStart = -1;
        // The byte that ended the element is read below, as a separator.
        this.phase = 'separator';
      }
      const byte = chunk[index] as number;
      const offset = this.position + index;
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
      this.element.add(chunk.slice(pieceStart));
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
        : this.phase === 'element' && this.scanner.inString
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
    this.scanner.begin(byte);
    this.element.begin({ offset, element: this.elementIndex });
  }

  private separator(byte: number, offset: number): void {
    if (isWhitespace(byte)) return;
    if (byte === COMMA) this.phase = 'next';
    else if (byte === CLOSE_BRACKET) this.phase = 'done';
    else throw this.unexpected(byte, offset, 'a `,` or the closing `]`');
  }

  private completeElement(last: Uint8Array): ArrayElement {
    this.element.add(last);
    const offset = this.element.offset;
    return { index: this.elementIndex++, offset, bytes: this.element.take() };
  }

  private unexpected(byte: number, offset: number, expected: string): JsonStreamError {
    return unexpectedByte({ byte, offset, expected, fileName: this.fileName, format: this.format });
  }
}

/** The elements of a top-level JSON array streamed from `source`, one at a time. */
export async function* splitJsonArray(
  options: JsonArraySplitterOptions & { source: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): AsyncGenerator<ArrayElement> {
  yield* splitChunks({ ...options, splitter: new JsonArraySplitter(options) });
}
