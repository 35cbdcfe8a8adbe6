/**
 * JSON lines read from a byte stream one line at a time: the buffer holds at most one line (up to
 * `maxRecordBytes`, then a `RecordTooLargeError` naming the line), so memory follows the largest
 * record, not the file. See docs/architecture.md#edge (importers).
 */
import { DEFAULT_MAX_RECORD_BYTES, RecordTooLargeError } from './stream-errors.js';

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BOM = '\uFEFF';

export interface TranscriptLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** The line as text: without its `\n` or `\r\n`, a leading byte-order mark dropped (line 1). */
  text: string;
  /** The line held bytes that are not UTF-8 (replaced with U+FFFD in `text`). */
  invalidUtf8: boolean;
}

export interface ReadLinesOptions {
  /** The bytes, in chunks (a `ReadStream`, or any async iterable of `Uint8Array`). */
  source: AsyncIterable<Uint8Array>;
  /** Largest line held, in bytes (default 64 MiB). */
  maxRecordBytes?: number;
  /** Named in a `RecordTooLargeError`. */
  fileName?: string;
  format?: string;
  signal?: AbortSignal;
}

/**
 * Every line of the stream, in order, blank ones included (so numbers match an editor's); a
 * final line without a newline is a line too. Each line decodes on its own: a newline byte is
 * never part of a multi-byte UTF-8 sequence.
 */
export async function* readLines(options: ReadLinesOptions): AsyncGenerator<TranscriptLine> {
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
  let pieces: Uint8Array[] = [];
  let held = 0;
  let line = 1;
  let lineStart = 0;
  let position = 0;

  const tooLarge = () =>
    new RecordTooLargeError({
      offset: lineStart,
      maxRecordBytes,
      line,
      file: options.fileName,
      format: options.format,
    });
  const finishLine = (bytes: Uint8Array): TranscriptLine => {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
    const body = bytes.subarray(0, end);
    let text: string;
    let invalidUtf8 = false;
    try {
      text = strict.decode(body);
    } catch {
      text = lenient.decode(body);
      invalidUtf8 = true;
    }
    if (line === 1 && text.startsWith(BOM)) text = text.slice(1);
    const result = { line, offset: lineStart, text, invalidUtf8 };
    line++;
    return result;
  };

  for await (const chunk of options.source) {
    options.signal?.throwIfAborted();
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (held + (end - start) > maxRecordBytes) throw tooLarge();
      if (newline === -1) {
        // Copied: a stream may reuse its chunk's memory for the next one.
        pieces.push(chunk.slice(start));
        held += chunk.length - start;
        break;
      }
      const bytes =
        pieces.length === 0
          ? chunk.subarray(start, end)
          : join(pieces, chunk.subarray(start, end), held);
      yield finishLine(bytes);
      pieces = [];
      held = 0;
      start = newline + 1;
      lineStart = position + start;
    }
    position += chunk.length;
  }
  if (held > 0) yield finishLine(join(pieces, new Uint8Array(0), held));
}

function join(pieces: Uint8Array[], last: Uint8Array, held: number): Uint8Array {
  const bytes = new Uint8Array(held + last.length);
  let offset = 0;
  for (const piece of pieces) {
    bytes.set(piece, offset);
    offset += piece.length;
  }
  bytes.set(last, offset);
  return bytes;
}
