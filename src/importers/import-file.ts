/**
 * `importTranscriptFile`: a transcript file imported without holding it whole where the format
 * allows (docs/architecture.md#edge, importers): JSONL (Claude Code) is read one line at a time;
 * a top-level JSON array of OpenAI chat messages or tau-bench runs, and an ADK session (an
 * object with `events`, or an array of events), one element at a time; each in two passes (the
 * second streams the events to the store). Other documents (a SWE-agent trajectory, an object
 * holding `messages`, AI SDK messages) are parsed whole, as before. Sniffing: `sniff-file.ts`.
 */

import { readFile } from 'node:fs/promises';
import { streamAdkFile } from './adk-stream.js';
import { streamClaudeCodeFile } from './claude-code-stream.js';
import { ImportError } from './errors.js';
import { fileReadError } from './file-source.js';
import { importTranscripts, runError } from './import-transcript.js';
import { openAiChatArrayFile } from './openai-chat-stream.js';
import { firstCharacter, sniffFile } from './sniff-file.js';
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
    if (format === 'openai-chat' && (await firstCharacter(named)) === '[') {
      const streamed = await openAiChatArrayFile(named);
      if (streamed) return streamed;
    }
    if (format === 'adk') {
      if (options.run !== undefined && options.run !== 0) throw runError(options.run, 1, fileName);
      const shape = await firstCharacter(named);
      if (shape === '[' || shape === '{') return [await streamAdkFile({ ...named, shape })];
    }
    return wholeFile(named, format);
  } catch (error) {
    if (ImportError.isInstance(error)) throw error.withFile(fileName);
    throw error;
  }
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
    // Stopped by the caller: its reason, not a read error.
    if (options.signal?.aborted) throw options.signal.reason;
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
