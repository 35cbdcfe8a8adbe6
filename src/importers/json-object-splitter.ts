/**
 * A top-level JSON object read from a byte stream one member at a time: each member's value is
 * held whole (up to `maxRecordBytes`), except the arrays under `streamKeys` (an ADK session's
 * `events`), whose elements come one at a time from a nested `JsonArraySplitter`. So an exported
 * session is read holding one event, never the document. Same byte scanner and errors as the
 * array splitter (`json-byte-scanner.ts`). See docs/architecture.md#edge (importers).
 */
import { type ArrayElement, JsonArraySplitter } from './json-array-splitter.js';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  HeldBytes,
  isWhitespace,
  JsonValueScanner,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  splitChunks,
  unexpectedByte,
} from './json-byte-scanner.js';
import { DEFAULT_MAX_RECORD_BYTES, JsonStreamError } from './stream-errors.js';

/**
 * A member held whole (`value`: its JSON bytes); the start of a streamed array member (`array`,
 * so an empty one is seen too); one element of it.
 */
export type ObjectPart =
  | { kind: 'member'; key: string; offset: number; value: Uint8Array }
  | { kind: 'array'; key: string; offset: number }
  | ({ kind: 'element'; key: string } & ArrayElement);

type Phase =
  | 'start'
  | 'first-key'
  | 'key-start'
  | 'key'
  | 'colon'
  | 'value-start'
  | 'value'
  | 'array'
  | 'after-value'
  | 'done';

export interface JsonObjectSplitterOptions {
  /** Members whose array value is streamed element by element. */
  streamKeys: readonly string[];
  /** Largest member value or element held, in bytes (default 64 MiB). */
  maxRecordBytes?: number;
  fileName?: string;
  format?: string;
}

export class JsonObjectSplitter {
  private readonly options: JsonObjectSplitterOptions;
  private readonly maxRecordBytes: number;
  private readonly scanner = new JsonValueScanner({ closer: CLOSE_BRACE });
  /** The member name or value being read. */
  private readonly value: HeldBytes;
  private phase: Phase = 'start';
  private position = 0;
  private key = '';
  private array?: JsonArraySplitter;

  constructor(options: JsonObjectSplitterOptions) {
    this.options = options;
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    this.value = new HeldBytes({
      maxRecordBytes: this.maxRecordBytes,
      fileName: options.fileName,
      format: options.format,
    });
  }

  push(chunk: Uint8Array): ObjectPart[] {
    const parts: ObjectPart[] = [];
    let index = 0;
    let pieceStart = this.phase === 'key' || this.phase === 'value' ? 0 : -1;
    if (this.phase === 'array') index = this.feedArray(chunk, 0, parts);
    for (; index < chunk.length; index++) {
      if (this.phase === 'key') {
        index = this.scanner.findStringEnd(chunk, index);
        if (index === chunk.length) break;
        this.value.add(chunk.subarray(pieceStart, index));
        pieceStart = -1;
        this.key = this.readKey(this.position + index);
        this.phase = 'colon';
        continue;
      }
      if (this.phase === 'value') {
        index = this.scanner.findEnd(chunk, index);
        if (index === chunk.length) break;
        this.value.add(chunk.subarray(pieceStart, index));
        pieceStart = -1;
        const valueOffset = this.value.offset;
        const value = this.value.take();
        parts.push({ kind: 'member', key: this.key, offset: valueOffset, value });
        // The byte that ended the value is read below, as what follows it.
        this.phase = 'after-value';
      }
      const byte = chunk[index] as number;
      const offset = this.position + index;
      if (
        offset < 3 &&
        this.phase === 'start' &&
        (byte === 0xef || byte === 0xbb || byte === 0xbf)
      ) {
        continue; // a UTF-8 byte-order mark
      }
      if (isWhitespace(byte)) continue;
      switch (this.phase) {
        case 'start':
          if (byte !== OPEN_BRACE) throw this.unexpected(byte, offset, 'a `{` (a JSON object)');
          this.phase = 'first-key';
          break;
        case 'first-key':
        case 'key-start':
          if (byte === CLOSE_BRACE && this.phase === 'first-key') {
            this.phase = 'done';
            break;
          }
          if (byte !== QUOTE) throw this.unexpected(byte, offset, 'a member name (a string)');
          this.phase = 'key';
          this.scanner.beginString();
          this.value.begin({ offset: offset + 1 });
          pieceStart = index + 1;
          break;
        case 'colon':
          if (byte !== COLON) throw this.unexpected(byte, offset, 'a `:`');
          this.phase = 'value-start';
          break;
        case 'value-start':
          if (byte === OPEN_BRACKET && this.options.streamKeys.includes(this.key)) {
            this.array = new JsonArraySplitter({
              maxRecordBytes: this.maxRecordBytes,
              fileName: this.options.fileName,
              format: this.options.format,
              nested: true,
              startOffset: offset,
            });
            this.phase = 'array';
            parts.push({ kind: 'array', key: this.key, offset });
            index = this.feedArray(chunk, index, parts) - 1;
            break;
          }
          if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET || byte === COLON) {
            throw this.unexpected(byte, offset, 'a value');
          }
          this.phase = 'value';
          this.scanner.begin(byte);
          this.value.begin({ offset });
          pieceStart = index;
          break;
        case 'after-value':
          this.afterValue(byte, offset);
          break;
        case 'done':
          throw this.unexpected(byte, offset, 'nothing after the closing `}`');
      }
    }
    if ((this.phase === 'key' || this.phase === 'value') && pieceStart >= 0) {
      // Copied: a stream may reuse its chunk's memory for the next one.
      this.value.add(chunk.slice(pieceStart));
    }
    this.position += chunk.length;
    return parts;
  }

  /** The input is over: throws unless the object closed. */
  end(): void {
    if (this.phase === 'done') return;
    throw new JsonStreamError({
      message:
        this.phase === 'start'
          ? 'the input ends before a `{` (a JSON object): it is truncated'
          : 'the input ends inside the object (it was never closed with `}`): it is truncated',
      offset: this.position,
      file: this.options.fileName,
      format: this.options.format,
    });
  }

  /** Feeds the streamed array from `from`; returns the index to go on from. */
  private feedArray(chunk: Uint8Array, from: number, parts: ObjectPart[]): number {
    const array = this.array as JsonArraySplitter;
    const piece = from === 0 ? chunk : chunk.subarray(from);
    for (const element of array.push(piece))
      parts.push({ kind: 'element', key: this.key, ...element });
    if (array.endIndex === undefined) return chunk.length;
    this.array = undefined;
    this.phase = 'after-value';
    return from + array.endIndex;
  }

  private readKey(offset: number): string {
    const raw = new TextDecoder().decode(this.value.take());
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      throw new JsonStreamError({
        message: `a member name is not a valid JSON string: ${JSON.stringify(raw.slice(0, 80))}`,
        offset,
        file: this.options.fileName,
        format: this.options.format,
      });
    }
  }

  private afterValue(byte: number, offset: number): void {
    if (isWhitespace(byte)) return;
    if (byte === COMMA) this.phase = 'key-start';
    else if (byte === CLOSE_BRACE) this.phase = 'done';
    else throw this.unexpected(byte, offset, 'a `,` or the closing `}`');
  }

  private unexpected(byte: number, offset: number, expected: string): JsonStreamError {
    const { fileName, format } = this.options;
    return unexpectedByte({ byte, offset, expected, fileName, format });
  }
}

/** The parts of a top-level JSON object streamed from `source`, one at a time. */
export async function* splitJsonObject(
  options: JsonObjectSplitterOptions & { source: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): AsyncGenerator<ObjectPart> {
  yield* splitChunks({ ...options, splitter: new JsonObjectSplitter(options) });
}
