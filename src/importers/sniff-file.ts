/**
 * `--format auto` for a file, reading as little as it can (docs/architecture.md#edge): the name,
 * the first bytes, the first two lines (JSONL). A JSON document is decided as `sniffDocument`
 * decides it, from one streamed pass that holds one element or member at a time. `auto` when
 * only the whole document can tell (it is then read whole).
 */

import { ImportError } from './errors.js';
import { readFileChunks, readFileRange } from './file-source.js';
import { splitJsonObject } from './json-object-splitter.js';
import { readLines } from './line-reader.js';
import { sniffArrayFile } from './openai-chat-stream.js';
import { JsonStreamError, RecordTooLargeError } from './stream-errors.js';
import type { ImportFormat } from './types.js';

/** Bytes read to tell a JSON document from JSON lines. */
const HEAD_BYTES = 4096;

export interface SniffFileOptions {
  path: string;
  fileName: string;
  maxRecordBytes?: number;
  signal?: AbortSignal;
}

export async function sniffFile(options: SniffFileOptions): Promise<ImportFormat | 'auto'> {
  const lower = options.fileName.toLowerCase();
  if (lower.endsWith('.traj')) return 'swe-agent';
  const first = await firstCharacter(options);
  const lines = first === '{' || lower.endsWith('.jsonl') ? await firstLines(options) : [];
  if (lower.endsWith('.jsonl') || looksLikeJsonLines(lines)) {
    try {
      const record: unknown = JSON.parse(lines[0] ?? '');
      if (isObject(record) && typeof record.type === 'string') return 'claude-code';
    } catch {
      // A JSONL file whose first line is broken still reads as Claude Code (and fails there).
      if (lower.endsWith('.jsonl')) return 'claude-code';
    }
  }
  if (first === '[') return (await sniffArrayFile(options)) ?? 'auto';
  if (first === '{') {
    try {
      return await sniffObjectFile(options);
    } catch (error) {
      // Lines of objects that are not one document: JSON lines of no format orrery reads (the
      // whole-text sniffer refuses them in the same words).
      if (!looksLikeJsonLines(lines) || !JsonStreamError.isInstance(error)) throw error;
      throw new ImportError({
        message: `cannot tell the format of ${options.fileName}: it is neither JSON nor JSON lines; pass --format`,
      });
    }
  }
  return 'auto';
}

/** The file's first character that is not whitespace (a byte-order mark skipped). */
export async function firstCharacter(options: SniffFileOptions): Promise<string> {
  const bytes = await readFileRange({
    path: options.path,
    start: 0,
    length: HEAD_BYTES,
    signal: options.signal,
  });
  const head = new TextDecoder().decode(bytes);
  return head
    .replace(/^\uFEFF/, '')
    .trimStart()
    .charAt(0);
}

/** As `sniffFormat`: an object on the first line, and another starts the next. */
function looksLikeJsonLines(lines: string[]): boolean {
  const [first, second] = lines;
  return (
    first !== undefined &&
    second !== undefined &&
    first.trimStart().startsWith('{') &&
    second.trimStart().startsWith('{')
  );
}

/**
 * The first two non-blank lines. A first line over `maxRecordBytes` is a document on one line
 * (not JSON lines): none are returned, and the document is sniffed as one.
 */
async function firstLines(options: SniffFileOptions): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const line of readLines({
      source: readFileChunks(options),
      maxRecordBytes: options.maxRecordBytes,
      fileName: options.fileName,
      signal: options.signal,
    })) {
      if (line.text.trim() !== '') found.push(line.text);
      if (found.length === 2) break;
    }
  } catch (error) {
    if (!RecordTooLargeError.isInstance(error)) throw error;
  }
  return found;
}

/**
 * An object document: `history` as an array is a SWE-agent trajectory and `events` an ADK
 * session (as `sniffDocument` orders them); anything else (`messages`, `traj`) is left to the
 * whole-document reader. The arrays are skipped element by element, never held.
 */
async function sniffObjectFile(options: SniffFileOptions): Promise<ImportFormat | 'auto'> {
  const arrays = new Set<string>();
  for await (const part of splitJsonObject({
    source: readFileChunks(options),
    streamKeys: ['events', 'history', 'messages'],
    maxRecordBytes: options.maxRecordBytes,
    fileName: options.fileName,
    signal: options.signal,
  })) {
    if (part.kind === 'array') arrays.add(part.key);
  }
  if (arrays.has('history')) return 'swe-agent';
  if (arrays.has('events')) return 'adk';
  return 'auto';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
