/**
 * `importTranscriptsAsync`: `importTranscripts` that imports only the detected format's module,
 * on first use. What the CLI's replay calls, so a replay of a Claude Code or OpenAI chat file
 * never loads the ADK importer and zod (docs/architecture.md#edge, importers).
 */
import {
  type FormatImporter,
  type ImportTranscriptOptions,
  importPrepared,
  namingFile,
  openAiChatImporter,
  prepareTranscript,
} from './transcript-dispatch.js';
import type { ImportFormat, ImportResult } from './types.js';

/** Each format's importer, its module imported when first asked for. */
const LOADERS: Readonly<Record<ImportFormat, () => Promise<FormatImporter>>> = {
  adk: async () => {
    const { importAdk } = await import('./adk.js');
    return (text, options) => [importAdk(text, options)];
  },
  'claude-code': async () => {
    const { importClaudeCode } = await import('./claude-code.js');
    return (text, options) => [importClaudeCode(text, options)];
  },
  'swe-agent': async () => {
    const { importSweAgent } = await import('./swe-agent.js');
    return (text, options) => [importSweAgent(text, options)];
  },
  'ai-sdk': async () => {
    const { importAiSdk } = await import('./ai-sdk.js');
    return (text, options) => [importAiSdk(text, options)];
  },
  'openai-chat': async () => openAiChatImporter(await import('./openai-chat.js')),
};

/**
 * The same results and errors as `importTranscripts` (every run, or `run` alone; errors name
 * `fileName`), with only the transcript's format's module loaded.
 */
export async function importTranscriptsAsync(
  options: ImportTranscriptOptions,
): Promise<ImportResult[]> {
  const prepared = namingFile(options.fileName, () => prepareTranscript(options));
  const importer = await LOADERS[prepared.format]?.();
  return namingFile(options.fileName, () => importPrepared(prepared, importer));
}
