import type { NewEvent } from '../events/types.js';

export type ImportFormat = 'adk' | 'openai-chat' | 'claude-code' | 'swe-agent' | 'ai-sdk';

export const IMPORT_FORMATS: readonly ImportFormat[] = [
  'adk',
  'openai-chat',
  'claude-code',
  'swe-agent',
  'ai-sdk',
];

/** What an importer changed so the history is well formed. Nothing is ever dropped silently. */
export interface Repair {
  kind: /** A call had no id: one was generated. */
    | 'call_id_assigned'
    /** A call reused an id seen earlier in the transcript: renamed to a unique one. */
    | 'call_id_renamed'
    /** A result named no call, or a call id no pending call had: paired with the oldest pending call. */
    | 'result_paired_by_position'
    /** A result arrived with no pending call at all: a model call was synthesized before it. */
    | 'call_synthesized'
    /** A call never got a result in the transcript (kept; the view answers it with an error). */
    | 'call_without_result'
    /** A system message in the middle of the transcript was moved into the instruction. */
    | 'system_message_moved'
    /** Assistant records sharing one message id were merged into one event (Claude Code). */
    | 'records_merged'
    /** A timestamp that went backwards was moved forward to keep time increasing. */
    | 'timestamp_adjusted'
    /** A compaction's range was renumbered to where its events are stored (ADK files with seq gaps). */
    | 'compaction_range_renumbered'
    /** Bytes that are not UTF-8 were replaced with U+FFFD (one repair per line). */
    | 'invalid_utf8_replaced';
  message: string;
  /** Where in the source: `messages[12]`, `line 40`, ... */
  location?: string;
  callId?: string;
}

export interface ImportMeta {
  format: ImportFormat;
  /** Model name recorded in the transcript, when there is one. */
  model?: string;
  /** System messages, joined: kept as the session's instruction, not as events. */
  systemInstruction?: string;
  /** Tool declarations recorded with the transcript (OpenAI `tools`), when present. */
  tools?: unknown[];
  /** Records or messages that carried no conversation (e.g. Claude Code `progress` lines). */
  skipped?: number;
  /** Index of the run in a multi-run file (tau-bench), when one was picked. */
  run?: number;
  /** Run count of a multi-run file. */
  runCount?: number;
  /** Source identifiers: session id, task id, instance id... */
  sourceId?: string;
  /** Session state carried by the source (ADK). */
  state?: Record<string, unknown>;
}

export interface ImportResult {
  events: NewEvent[];
  repairs: Repair[];
  meta: ImportMeta;
}

export interface ImportOptions {
  /** Author of model events and function responses (default `agent`). */
  agentName?: string;
  /**
   * Epoch seconds of the first synthetic timestamp, for sources without times. Default: now
   * minus one millisecond per event, so synthetic times end at the import.
   */
  startTime?: number;
}

export interface MultiRunImportOptions extends ImportOptions {
  /** Multi-run files (tau-bench): the 0-based index of the run to import. Default: the first. */
  run?: number;
}
