/** What the splitter tests share: feeding a text in small chunks, and catching the error. */
import { expect } from 'vitest';
import { JsonStreamError } from '../stream-errors.js';

const encoder = new TextEncoder();

/** What `splitter.push` returned for `text` fed `size` bytes at a time, then `end` called. */
export function feedText<Part>(options: {
  text: string;
  size: number;
  splitter: { push(chunk: Uint8Array): Part[]; end(): void };
}): Part[] {
  const bytes = encoder.encode(options.text);
  const parts: Part[] = [];
  for (let start = 0; start < bytes.length; start += options.size) {
    // A copy, as a stream hands out: the splitter may not keep a view of the whole input.
    parts.push(...options.splitter.push(bytes.slice(start, start + options.size)));
  }
  options.splitter.end();
  return parts;
}

/** The error `run` throws; a test failure when it throws none. */
export function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

/** The `JsonStreamError` `run` throws, checked to name byte `offset`. */
export function streamErrorAt(run: () => unknown, offset: number): JsonStreamError {
  const error = caught(run);
  expect(JsonStreamError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ offset });
  return error as JsonStreamError;
}
