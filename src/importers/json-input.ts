import { ImportError } from './errors.js';
import { assertNestingDepth, assertValueDepth, stripBom } from './text-input.js';
import type { ImportFormat } from './types.js';

/**
 * Parse a JSON document (or pass a parsed value through): a syntax error, or nesting deeper than
 * events hold, names the line. A byte-order mark is dropped.
 */
export function parseJsonInput(input: string | unknown, format: ImportFormat | 'auto'): unknown {
  const known = format === 'auto' ? undefined : format;
  if (typeof input !== 'string') {
    assertValueDepth(input, { format: known });
    return input;
  }
  const text = stripBom(input);
  assertNestingDepth(text, { format: known });
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec(String((error as Error).message));
    const line =
      position?.[1] === undefined
        ? undefined
        : text.slice(0, Number(position[1])).split('\n').length;
    throw new ImportError({
      message: `not valid JSON (${(error as Error).message})`,
      line,
      format: format === 'auto' ? undefined : format,
      cause: error,
    });
  }
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const lenientDecoder = new TextDecoder('utf-8');

/**
 * One record of a streamed file (an array element, an object member), parsed: bytes that are
 * not UTF-8 become U+FFFD (`invalidUtf8`, for the caller's repair); nesting deeper than
 * `maxDepth` or a syntax error is an `ImportError` at `path` naming the record's byte `offset`.
 */
export function parseJsonRecord(options: {
  bytes: Uint8Array;
  path: string;
  offset: number;
  format: string | undefined;
  maxDepth: number;
}): { value: unknown; invalidUtf8: boolean } {
  const { path, format } = options;
  let text: string;
  let invalidUtf8 = false;
  try {
    text = strictDecoder.decode(options.bytes);
  } catch {
    text = lenientDecoder.decode(options.bytes);
    invalidUtf8 = true;
  }
  try {
    assertNestingDepth(text, { format, maxDepth: options.maxDepth });
  } catch (error) {
    if (!ImportError.isInstance(error)) throw error;
    throw new ImportError({ message: error.detail, path, format });
  }
  try {
    return { value: JSON.parse(text) as unknown, invalidUtf8 };
  } catch (error) {
    throw new ImportError({
      message: `not valid JSON (${(error as Error).message}) in the value starting at byte ${options.offset}`,
      path,
      format,
      cause: error,
    });
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `arguments` strings of OpenAI calls: an object, or the raw text kept under `_raw`. */
export function parseArguments(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (isRecord(parsed)) return parsed;
    return { value: parsed };
  } catch {
    // Models emit truncated or invalid JSON: keep the text rather than drop the call.
    return { _raw: value };
  }
}

/** Epoch seconds from an ISO string, epoch seconds or epoch milliseconds. */
export function toEpochSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    return value > 1e12 ? value / 1000 : value;
  }
  if (typeof value === 'string' && value !== '') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed / 1000;
  }
  return undefined;
}
