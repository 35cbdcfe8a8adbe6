/**
 * One entry point for every format: `importTranscripts` returns one result per run (a tau-bench
 * file holds many; every other format holds one), `importTranscript` exactly one.
 */
import { importAdk } from './adk.js';
import { importAiSdk } from './ai-sdk.js';
import { importClaudeCode } from './claude-code.js';
import { ImportError } from './errors.js';
import { importOpenAiChatRun, openAiChatRuns } from './openai-chat.js';
import { sniffFormat } from './sniff.js';
import { assertStorableEvents } from './store-rules.js';
import { importSweAgent } from './swe-agent.js';
import { assertNestingDepth, decodeTranscript, stripBom } from './text-input.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportResult,
  type MultiRunImportOptions,
} from './types.js';

export interface ImportTranscriptOptions extends MultiRunImportOptions {
  /**
   * The transcript: text, or a file's bytes (decoded as UTF-8: bytes that are not UTF-8 become
   * U+FFFD, reported as an `invalid_utf8_replaced` repair naming the line). A byte-order mark
   * is dropped either way.
   */
  text: string | Uint8Array;
  /** Used by `auto` and named in every error. */
  fileName?: string;
  /** Default `auto`: sniffed from the file name and content. */
  format?: ImportFormat | 'auto';
}

export function parseImportFormat(value: string): ImportFormat | 'auto' {
  if (value === 'auto' || (IMPORT_FORMATS as readonly string[]).includes(value)) {
    return value as ImportFormat | 'auto';
  }
  throw new ImportError({
    message: `unknown format ${JSON.stringify(value)} (expected auto, ${IMPORT_FORMATS.join(', ')})`,
  });
}

/**
 * Every run of the transcript (`run` set: only that one). Every error is an `ImportError` naming
 * `fileName`; every event returned passes the store's append rules.
 */
export function importTranscripts(options: ImportTranscriptOptions): ImportResult[] {
  try {
    return importAll(options);
  } catch (error) {
    if (ImportError.isInstance(error)) throw error.withFile(options.fileName);
    throw error;
  }
}

function importAll(options: ImportTranscriptOptions): ImportResult[] {
  const decoded =
    typeof options.text === 'string'
      ? { text: stripBom(options.text), repairs: [] }
      : decodeTranscript(options.text);
  const { text } = decoded;
  if (text.trim() === '') {
    throw new ImportError({
      message: `${options.fileName ?? 'the input'} is empty: there is no transcript to import`,
    });
  }
  assertNestingDepth(text);
  const format =
    options.format === undefined || options.format === 'auto'
      ? sniffFormat(text, options.fileName)
      : options.format;
  const { text: _text, fileName: _fileName, format: _format, ...rest } = options;
  const results = importFormat(text, format, rest, options.fileName);
  for (const result of results) {
    result.repairs.unshift(...decoded.repairs);
    if (format === 'adk') {
      assertStorableEvents(result.events, { format, locate: (index) => `events[${index}]` });
    }
  }
  return results;
}

function importFormat(
  text: string,
  format: ImportFormat,
  options: MultiRunImportOptions,
  fileName: string | undefined,
): ImportResult[] {
  if (format !== 'openai-chat' && options.run !== undefined && options.run !== 0) {
    throw runError(options.run, 1, fileName);
  }
  switch (format) {
    case 'adk':
      return [importAdk(text, options)];
    case 'claude-code':
      return [importClaudeCode(text, options)];
    case 'swe-agent':
      return [importSweAgent(text, options)];
    case 'ai-sdk':
      return [importAiSdk(text, options)];
    case 'openai-chat': {
      const runs = openAiChatRuns(text);
      if (options.run === undefined) return runs.map((run) => importOpenAiChatRun(run, options));
      const run = runs[options.run];
      if (!run) throw runError(options.run, runs.length, fileName);
      return [importOpenAiChatRun(run, options)];
    }
    default:
      throw new ImportError({ message: `unknown format ${JSON.stringify(format)}` });
  }
}

/** `run` past the file's runs: names `--run` (the CLI flag) and how many runs there are. */
export function runError(run: number, count: number, fileName: string | undefined): ImportError {
  const file = fileName ?? 'the input';
  return new ImportError({
    message:
      count === 1
        ? `run ${run} (--run ${run}) does not exist: ${file} holds a single run (only --run 0; leave --run out)`
        : `run ${run} (--run ${run}) does not exist: ${file} holds ${count} runs (--run 0 to ${count - 1})`,
  });
}

/** Exactly one transcript: a multi-run file needs `run`. */
export function importTranscript(options: ImportTranscriptOptions): ImportResult {
  const results = importTranscripts(options);
  if (results.length !== 1) {
    throw new ImportError({
      message: `${options.fileName ?? 'the input'} holds ${results.length} runs: pick one with run (--run N, 0-${results.length - 1})`,
    });
  }
  return results[0] as ImportResult;
}
