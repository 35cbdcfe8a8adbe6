/**
 * A transcript's bytes as text, and the checks every format needs before it is parsed: a UTF-8
 * byte-order mark is dropped (editors on Windows write one); bytes that are not UTF-8 are
 * replaced with U+FFFD and reported as a repair naming each line (the rest of the transcript
 * is still worth importing, and nothing is changed silently); nesting deeper than the event
 * model holds is refused naming the line, before a recursive step could overflow the stack.
 */
import { MAX_JSON_DEPTH } from '../events/json-value.js';
import { ImportError } from './errors.js';
import type { Repair } from './types.js';

const BOM = '\uFEFF';
const NEWLINE = 0x0a;

/**
 * Deepest nesting a transcript may have: the event model's limit plus the levels a format wraps
 * around an event's values (a Claude Code record around tool input, ADK's events list).
 */
export const MAX_INPUT_DEPTH = MAX_JSON_DEPTH + 16;

/** Text without a leading byte-order mark. */
export function stripBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/** UTF-8 bytes as text (BOM dropped); invalid sequences replaced and reported by line. */
export function decodeTranscript(bytes: Uint8Array): { text: string; repairs: Repair[] } {
  try {
    return { text: stripBom(new TextDecoder('utf-8', { fatal: true }).decode(bytes)), repairs: [] };
  } catch {
    // Slow path only for a broken file: find the lines (a newline byte is never inside a
    // multi-byte sequence, so each line decodes on its own).
  }
  const repairs: Repair[] = [];
  const strict = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let line = 1;
  while (start <= bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    try {
      strict.decode(bytes.subarray(start, end));
    } catch {
      repairs.push(invalidUtf8Repair(`line ${line}`));
    }
    start = end + 1;
    line++;
  }
  return { text: stripBom(new TextDecoder('utf-8').decode(bytes)), repairs };
}

/** The repair for a record (`location`) whose bytes were not all UTF-8: one wording. */
export function invalidUtf8Repair(location: string): Repair {
  return {
    kind: 'invalid_utf8_replaced',
    message: 'bytes that are not UTF-8 were replaced with U+FFFD (the replacement character)',
    location,
  };
}

/**
 * Throws an `ImportError` naming the line where JSON text nests objects and arrays deeper than
 * `maxDepth`. A character scan (strings skipped): no parse, no recursion.
 */
export function assertNestingDepth(
  text: string,
  options: { format?: string; maxDepth?: number; firstLine?: number } = {},
): void {
  const maxDepth = options.maxDepth ?? MAX_INPUT_DEPTH;
  let depth = 0;
  // `firstLine`: the number of the text's first line in its file (a streamed JSONL line).
  let line = options.firstLine ?? 1;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 10) {
      line++;
      continue;
    }
    if (inString) {
      if (code === 92)
        index++; // backslash: skip the escaped character
      else if (code === 34) inString = false;
      continue;
    }
    if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      depth++;
      if (depth > maxDepth) {
        throw new ImportError({
          message: `nests objects and arrays deeper than ${maxDepth} levels (events hold at most ${MAX_JSON_DEPTH})`,
          line,
          format: options.format,
        });
      }
    } else if (code === 125 || code === 93) depth = Math.max(0, depth - 1);
  }
}

/** The same check for a value already parsed (iterative). */
export function assertValueDepth(
  value: unknown,
  options: { format?: string; maxDepth?: number } = {},
): void {
  const maxDepth = options.maxDepth ?? MAX_INPUT_DEPTH;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (item.depth >= maxDepth) {
      throw new ImportError({
        message: `nests objects and arrays deeper than ${maxDepth} levels (events hold at most ${MAX_JSON_DEPTH})`,
        format: options.format,
      });
    }
    for (const child of Object.values(item.value)) {
      stack.push({ value: child, depth: item.depth + 1 });
    }
  }
}
