/**
 * `importTranscriptFile`: a transcript file imported without holding it whole where the format
 * allows (docs/architecture.md#edge, importers): JSONL (Claude Code) is read one line at a time,
 * a top-level JSON array of OpenAI chat messages or tau-bench runs one element at a time, each
 * in two passes (the second streams the events to the store). Other documents (an ADK session,
 * a SWE-agent trajectory, an object holding `messages`) are parsed whole, as before. Format
 * sniffing reads the first bytes (and, for a JSON array, one streamed pass over its elements).
 */

import { readFile } from 'node:fs/promises';
import { streamClaudeCodeFile } from './claude-code-stream.js';
import { ImportError } from './errors.js';
import { fileReadError, readFileChunks, readFileHead } from './file-source.js';
import { importTranscripts, runError } from './import-transcript.js';
import { readLines } from './line-reader.js';
import { openAiChatArrayFile, sniffArrayFile } from './openai-chat-stream.js';
import { RecordTooLargeError } from './stream-errors.js';
import { StatsCounter, type StreamedImport } from './streamed-import.js';
import type { ImportFormat, ImportResult, MultiRunImportOptions } from './types.js';

export interface ImportTranscriptFileOptions extends MultiRunImportOptions {
  /** The transcript file. */
  path: string;
  /** Named in every error (default: the path). */
  fileName?: string;
  /** Default `auto`: sniffed from the file name and first bytes. */
  format?: ImportFormat | 'auto';
  /** Largest record (a JSONL line, an array element) held, in bytes; default 64 MiB. */
  maxRecordBytes?: number;
  signal?: AbortSignal;
}

/** Bytes read to tell a JSON document from JSON lines. */
const HEAD_BYTES = 4096;

/**
 * One streamed import per run (a tau-bench file holds many; `run` picks one). Every error is an
 * `ImportError` naming the file; every event handed out passes the store's append rules.
 */
export async function importTranscriptFile(
  options: ImportTranscriptFileOptions,
): Promise<StreamedImport[]> {
  const fileName = options.fileName ?? options.path;
  const named = { ...options, fileName };
  try {
    const format =
      options.format === undefined || options.format === 'auto'
        ? await sniffFile(named)
        : options.format;
    if (format === 'claude-code') {
      if (options.run !== undefined && options.run !== 0) throw runError(options.run, 1, fileName);
      return [await streamClaudeCodeFile(named)];
    }
    if (format === 'openai-chat' || format === 'array') {
      const head = await firstByte(named);
      if (head === '[') {
        const streamed = await openAiChatArrayFile(named);
        if (streamed) return streamed;
      }
    }
    return wholeFile(named, format === 'array' ? 'auto' : format);
  } catch (error) {
    if (ImportError.isInstance(error)) throw error.withFile(fileName);
    throw error;
  }
}

/**
 * The format from the name and the first bytes: `array` when the file is a JSON array whose
 * elements decide (OpenAI chat messages or runs stream; anything else is parsed whole), `auto`
 * when only the whole document can tell.
 */
async function sniffFile(
  options: ImportTranscriptFileOptions & { fileName: string },
): Promise<ImportFormat | 'auto' | 'array'> {
  const lower = options.fileName.toLowerCase();
  if (lower.endsWith('.traj')) return 'swe-agent';
  const head = new TextDecoder().decode(await readFileHead({ ...options, bytes: HEAD_BYTES }));
  const trimmed = head.replace(/^\uFEFF/, '').trimStart();
  const lines =
    trimmed.startsWith('{') || lower.endsWith('.jsonl') ? await firstLines(options) : [];
  if (lower.endsWith('.jsonl') || looksLikeJsonLines(lines)) {
    const firstLine = lines[0] ?? '';
    try {
      const record: unknown = JSON.parse(firstLine);
      if (isObject(record) && typeof record.type === 'string') return 'claude-code';
    } catch {
      // A JSONL file whose first line is broken still reads as Claude Code (and fails there).
      if (lower.endsWith('.jsonl')) return 'claude-code';
    }
  }
  if (trimmed.startsWith('[')) return (await sniffArrayFile(options)) ?? 'auto';
  return 'auto';
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
 * (not JSON lines): none are returned, and the whole-document reader decides.
 */
async function firstLines(options: ImportTranscriptFileOptions): Promise<string[]> {
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

async function firstByte(options: ImportTranscriptFileOptions): Promise<string> {
  const head = new TextDecoder().decode(await readFileHead({ ...options, bytes: HEAD_BYTES }));
  return head
    .replace(/^\uFEFF/, '')
    .trimStart()
    .charAt(0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Formats read whole: the file's bytes, parsed as `importTranscripts` does. */
async function wholeFile(
  options: ImportTranscriptFileOptions & { fileName: string },
  format: ImportFormat | 'auto',
): Promise<StreamedImport[]> {
  let text: Uint8Array;
  try {
    text = await readFile(options.path, { signal: options.signal });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    throw fileReadError(options.path, error);
  }
  const { path: _path, maxRecordBytes: _max, signal: _signal, ...rest } = options;
  const results = importTranscripts({ ...rest, format, text });
  return results.map(heldImport);
}

/** A result already held as a streamed import (its events handed out from memory). */
export function heldImport(result: ImportResult): StreamedImport {
  const counter = new StatsCounter(false);
  for (const event of result.events) counter.add(event);
  return {
    meta: result.meta,
    repairs: result.repairs,
    stats: counter.stats,
    source: 'memory',
    events: async function* () {
      yield* result.events;
    },
  };
}
