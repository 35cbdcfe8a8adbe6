/**
 * A transcript file as a stream of byte chunks, opened afresh for each pass of a streamed import
 * (or for one record's byte range: a run of a multi-run file), and the one wording of a file
 * that cannot be read. See docs/architecture.md#edge.
 */
import { createReadStream } from 'node:fs';
import { ImportError } from './errors.js';

/** Chunk size of a read: small enough that a pass holds little beyond the current record. */
const CHUNK_BYTES = 64 * 1024;

/** `file not found: x`, `x is a directory`, or `cannot read x: ...` (the system's words). */
export function fileReadError(file: string, error: unknown): ImportError {
  const code = (error as NodeJS.ErrnoException).code;
  return new ImportError({
    message:
      code === 'ENOENT'
        ? `file not found: ${file}`
        : code === 'EISDIR'
          ? `${file} is a directory: pass a transcript file`
          : `cannot read ${file}: ${(error as Error).message}`,
    // The system's own words only where the message does not already say it all.
    cause: code === 'ENOENT' || code === 'EISDIR' ? undefined : error,
  });
}

/**
 * The file's bytes, `CHUNK_BYTES` at a time; `start`: from that byte offset (default 0); `end`:
 * stop before that byte offset.
 */
export async function* readFileChunks(options: {
  path: string;
  start?: number;
  end?: number;
  signal?: AbortSignal;
}): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(options.path, {
    highWaterMark: CHUNK_BYTES,
    start: options.start,
    end: options.end === undefined ? undefined : options.end - 1,
  });
  try {
    for await (const chunk of stream) {
      options.signal?.throwIfAborted();
      yield chunk as Buffer;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) {
      throw fileReadError(options.path, error);
    }
    throw error;
  } finally {
    stream.destroy();
  }
}

/**
 * The `length` bytes of the file from byte `start` (a record whose place an earlier pass
 * found, or the head a sniff reads); fewer when the file is shorter, which the caller checks.
 */
export async function readFileRange(options: {
  path: string;
  start: number;
  length: number;
  signal?: AbortSignal;
}): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of readFileChunks({
    path: options.path,
    start: options.start,
    end: options.start + options.length,
    signal: options.signal,
  })) {
    pieces.push(chunk);
    length += chunk.length;
  }
  return Buffer.concat(pieces, length);
}
