/**
 * `orrery-runtime/importers`: recorded transcripts (ADK, AI SDK, Claude Code, OpenAI chat,
 * SWE-agent) into orrery sessions, streamed, with a report of every repair (docs/importers.md).
 */

export { EARLIER_SUMMARY_KEY, IMPORT_REPAIR_KEY } from '../events/metadata-keys.js';
export { importAdk } from '../importers/adk.js';
export { importAiSdk } from '../importers/ai-sdk.js';
export { importClaudeCode } from '../importers/claude-code.js';
export { ImportError } from '../importers/errors.js';
export {
  type ImportTranscriptFileOptions,
  importTranscriptFile,
} from '../importers/import-file.js';
export {
  type ImportTranscriptOptions,
  importTranscript,
  importTranscripts,
  parseImportFormat,
} from '../importers/import-transcript.js';
export { importOpenAiChat } from '../importers/openai-chat.js';
export { sniffFormat } from '../importers/sniff.js';
export { JsonStreamError, RecordTooLargeError } from '../importers/stream-errors.js';
export type { ImportStats, StreamedImport } from '../importers/streamed-import.js';
export { importSweAgent } from '../importers/swe-agent.js';
export {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportMeta,
  type ImportOptions,
  type ImportResult,
  type MultiRunImportOptions,
  type Repair,
} from '../importers/types.js';
