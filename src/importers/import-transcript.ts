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
import { importSweAgent } from './swe-agent.js';
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportResult,
  type MultiRunImportOptions,
} from './types.js';

export interface ImportTranscriptOptions extends MultiRunImportOptions {
  text: string;
  /** Used by `auto` and in messages. */
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

/** Every run of the transcript (`run` set: only that one). */
export function importTranscripts(options: ImportTranscriptOptions): ImportResult[] {
  if (options.text.trim() === '') {
    throw new ImportError({
      message: `${options.fileName ?? 'the input'} is empty: there is no transcript to import`,
    });
  }
  const format =
    options.format === undefined || options.format === 'auto'
      ? sniffFormat(options.text, options.fileName)
      : options.format;
  const { text, fileName: _fileName, format: _format, ...rest } = options;
  switch (format) {
    case 'adk':
      return [importAdk(text, rest)];
    case 'claude-code':
      return [importClaudeCode(text, rest)];
    case 'swe-agent':
      return [importSweAgent(text, rest)];
    case 'ai-sdk':
      return [importAiSdk(text, rest)];
    case 'openai-chat': {
      const runs = openAiChatRuns(text);
      if (options.run === undefined) return runs.map((run) => importOpenAiChatRun(run, rest));
      const run = runs[options.run];
      if (!run) {
        throw new ImportError({
          message: `run ${options.run} does not exist: the file holds ${runs.length} run(s) (0-${runs.length - 1})`,
          format,
        });
      }
      return [importOpenAiChatRun(run, rest)];
    }
    default:
      throw new ImportError({ message: `unknown format ${JSON.stringify(format)}` });
  }
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
