/**
 * A top-level JSON object read from a byte stream one member at a time: each member's value is
 * held whole (up to `maxRecordBytes`), except the arrays under `streamKeys` (an ADK session's
 * `events`), whose elements come one at a time from a nested `JsonArraySplitter`. So an exported
 * session is read holding one event, never the document. Same byte scanner and errors as the
 * array splitter. See docs/architecture.md#edge (importers).
 */
import { type ArrayElement, JsonArraySplitter } from './json-array-splitter.js';
import { DEFAULT_MAX_RECORD_BYTES, JsonStreamError, RecordTooLargeError } from './stream-errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

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
  private phase: Phase = 'start';
  private position = 0;
  private key = '';
  private pieces: Uint8Array[] = [];
  private held = 0;
  private valueStart = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private array?: JsonArraySplitter;

  constructor(options: JsonObjectSplitterOptions) {
    this.options = options;
    this.maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  }

  push(chunk: Uint8Array): ObjectPart[] {
    const parts: ObjectPart[] = [];
    let index = 0;
    let pieceStart = this.phase === 'key' || this.phase === 'value' ? 0 : -1;
    if (this.phase === 'array') index = this.feedArray(chunk, 0, parts);
    for (; index < chunk.length; index++) {
      const byte = chunk[index] as number;
      const offset = this.position + index;
      if (this.phase === 'key' || this.phase === 'value') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.inString = false;
            if (this.phase === 'key') {
              this.hold(chunk.subarray(pieceStart, index));
              pieceStart = -1;
              this.key = this.readKey(offset);
              this.phase = 'colon';
            }
          }
          continue;
        }
        if (byte === QUOTE) this.inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
        else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && this.depth > 0) this.depth--;
        else if (
          this.depth === 0 &&
          (byte === COMMA || byte === CLOSE_BRACE || isWhitespace(byte))
        ) {
          this.hold(chunk.subarray(pieceStart, index));
          pieceStart = -1;
          parts.push({
            kind: 'member',
            key: this.key,
            offset: this.valueStart,
            value: this.take(),
          });
          this.phase = 'after-value';
          this.afterValue(byte, offset);
        }
        continue;
      }
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
          this.inString = true;
          this.escaped = false;
          this.startHolding(offset + 1);
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
          this.depth = byte === OPEN_BRACE || byte === OPEN_BRACKET ? 1 : 0;
          this.inString = byte === QUOTE;
          this.escaped = false;
          this.startHolding(offset);
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
      this.hold(chunk.slice(pieceStart));
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
    const raw = new TextDecoder().decode(this.take());
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

  private startHolding(offset: number): void {
    this.valueStart = offset;
    this.pieces = [];
    this.held = 0;
  }

  private hold(piece: Uint8Array): void {
    this.held += piece.length;
    if (this.held > this.maxRecordBytes) {
      throw new RecordTooLargeError({
        offset: this.valueStart,
        maxRecordBytes: this.maxRecordBytes,
        file: this.options.fileName,
        format: this.options.format,
      });
    }
    this.pieces.push(piece);
  }

  private take(): Uint8Array {
    const bytes =
      this.pieces.length === 1
        ? (this.pieces[0] as Uint8Array)
        : Buffer.concat(this.pieces, this.held);
    this.pieces = [];
    this.held = 0;
    return bytes;
  }

  private unexpected(byte: number, offset: number, expected: string): JsonStreamError {
    const shown =
      byte >= 0x20 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `0x${byte.toString(16)}`;
    return new JsonStreamError({
      message: `expected ${expected}, found ${shown}`,
      offset,
      file: this.options.fileName,
      format: this.options.format,
    });
  }
}

/** The parts of a top-level JSON object streamed from `source`, one at a time. */
export async function* splitJsonObject(
  options: JsonObjectSplitterOptions & { source: AsyncIterable<Uint8Array>; signal?: AbortSignal },
): AsyncGenerator<ObjectPart> {
  const splitter = new JsonObjectSplitter(options);
  for await (const chunk of options.source) {
    options.signal?.throwIfAborted();
    yield* splitter.push(chunk);
  }
  splitter.end();
}
