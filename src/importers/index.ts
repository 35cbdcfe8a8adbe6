export { importAdk } from './adk.js';
export { importAiSdk } from './ai-sdk.js';
export { importClaudeCode, SIDECHAIN_BRANCH } from './claude-code.js';
export { ImportError } from './errors.js';
export { type ImportTranscriptFileOptions, importTranscriptFile } from './import-file.js';
export {
  type ImportTranscriptOptions,
  importTranscript,
  importTranscripts,
  parseImportFormat,
} from './import-transcript.js';
export { importTranscriptsAsync } from './import-transcripts-async.js';
export { importOpenAiChat, type OpenAiChatRun, openAiChatRuns } from './openai-chat.js';
export { sniffDocument, sniffFormat } from './sniff.js';
export { JsonStreamError, RecordTooLargeError } from './stream-errors.js';
export type { ImportStats, StreamedImport } from './streamed-import.js';
export { importSweAgent } from './swe-agent.js';
export { EARLIER_SUMMARY_KEY, IMPORT_REPAIR_KEY } from './transcript-builder.js';
export {
  IMPORT_FORMATS,
  type ImportFormat,
  type ImportMeta,
  type ImportOptions,
  type ImportResult,
  type MultiRunImportOptions,
  type Repair,
} from './types.js';
