/**
 * One entry point for every format: `importTranscripts` returns one result per run (a tau-bench
 * file holds many; every other format holds one), `importTranscript` exactly one. Both load
 * every format's module; `importTranscriptsAsync` (import-transcripts-async.ts) loads only the
 * one it needs.
 */
import { importAdk } from './adk.js';
import { importAiSdk } from './ai-sdk.js';
import { importClaudeCode } from './claude-code.js';
import { ImportError } from './errors.js';
import { importOpenAiChatRun, openAiChatRuns } from './openai-chat.js';
import { importSweAgent } from './swe-agent.js';
import {
  type FormatImporter,
  type ImportTranscriptOptions,
  importPrepared,
  namingFile,
  openAiChatImporter,
  prepareTranscript,
} from './transcript-dispatch.js';
import type { ImportFormat, ImportResult } from './types.js';

export {
  type ImportTranscriptOptions,
  parseImportFormat,
  runError,
} from './transcript-dispatch.js';

const IMPORTERS: Readonly<Record<ImportFormat, FormatImporter>> = {
  adk: (text, options) => [importAdk(text, options)],
  'claude-code': (text, options) => [importClaudeCode(text, options)],
  'swe-agent': (text, options) => [importSweAgent(text, options)],
  'ai-sdk': (text, options) => [importAiSdk(text, options)],
  'openai-chat': openAiChatImporter({ openAiChatRuns, importOpenAiChatRun }),
};

/**
 * Every run of the transcript (`run` set: only that one). Every error is an `ImportError` naming
 * `fileName`; every event returned passes the store's append rules.
 */
export function importTranscripts(options: ImportTranscriptOptions): ImportResult[] {
  return namingFile(options.fileName, () => {
    const prepared = prepareTranscript(options);
    return importPrepared(prepared, IMPORTERS[prepared.format]);
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
