/**
 * What `importTranscripts` (every format's module loaded up front) and `importTranscriptsAsync`
 * (only the detected format's module loaded) share: the text checks, the format, the run rule,
 * the repairs and store rules applied to the results. No format's module is imported here, so
 * the CLI's replay loads the ADK importer (and zod) only for an ADK file
 * (docs/architecture.md#edge, importers).
 */
import { ImportError } from './errors.js';
import type { OpenAiChatRun } from './openai-chat.js';
import { sniffFormat } from './sniff.js';
import { assertStorableEvents } from './store-rules.js';
import { assertNestingDepth, decodeTranscript, stripBom } from './text-input.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportResult,
  type MultiRunImportOptions,
  type Repair,
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

/** One format's import of a whole text: one result per run. */
export type FormatImporter = (
  text: string,
  options: MultiRunImportOptions,
  fileName: string | undefined,
) => ImportResult[];

export function parseImportFormat(value: string): ImportFormat | 'auto' {
  if (value === 'auto' || (IMPORT_FORMATS as readonly string[]).includes(value)) {
    return value as ImportFormat | 'auto';
  }
  throw new ImportError({
    message: `unknown format ${JSON.stringify(value)} (expected auto, ${IMPORT_FORMATS.join(', ')})`,
  });
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

/** The transcript decoded and checked, its format known: what a format's importer is given. */
export interface PreparedTranscript {
  text: string;
  format: ImportFormat;
  /** From decoding (invalid UTF-8): put before the importer's own. */
  decodeRepairs: Repair[];
  options: MultiRunImportOptions;
  fileName: string | undefined;
}

/** Decodes, refuses an empty or too deeply nested text, sniffs the format (`auto`). */
export function prepareTranscript(options: ImportTranscriptOptions): PreparedTranscript {
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
  const { text: _text, fileName, format: _format, ...rest } = options;
  return { text, format, decodeRepairs: decoded.repairs, options: rest, fileName };
}

/** Runs `importer` on the prepared text: the run rule, the decode repairs, the store rules. */
export function importPrepared(
  prepared: PreparedTranscript,
  importer: FormatImporter | undefined,
): ImportResult[] {
  const { text, format, options, fileName } = prepared;
  if (format !== 'openai-chat' && options.run !== undefined && options.run !== 0) {
    throw runError(options.run, 1, fileName);
  }
  if (!importer) throw new ImportError({ message: `unknown format ${JSON.stringify(format)}` });
  const results = importer(text, options, fileName);
  for (const result of results) {
    result.repairs.unshift(...prepared.decodeRepairs);
    if (format === 'adk') {
      assertStorableEvents(result.events, { format, locate: (index) => `events[${index}]` });
    }
  }
  return results;
}

/** An `ImportError` thrown by `work` names the file. */
export function namingFile<T>(fileName: string | undefined, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (ImportError.isInstance(error)) throw error.withFile(fileName);
    throw error;
  }
}

/** The OpenAI chat importer over its module's two functions: every run, or `run` alone. */
export function openAiChatImporter(module: {
  openAiChatRuns: (text: string) => OpenAiChatRun[];
  importOpenAiChatRun: (run: OpenAiChatRun, options: MultiRunImportOptions) => ImportResult;
}): FormatImporter {
  return (text, options, fileName) => {
    const runs = module.openAiChatRuns(text);
    if (options.run === undefined) {
      return runs.map((run) => module.importOpenAiChatRun(run, options));
    }
    const run = runs[options.run];
    if (!run) throw runError(options.run, runs.length, fileName);
    return [module.importOpenAiChatRun(run, options)];
  };
}
