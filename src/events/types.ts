/**
 * orrery's event model (docs/architecture.md#the-event-model). The JSON shape is ADK's (camelCase)
 * so sessions round-trip with ADK; `seq` is orrery's own: a per-session integer assigned by the
 * store at append.
 */

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

/*
 * Part-level objects keep the fields ADK (genai) writes that orrery does not model (e.g. a part's
 * `videoMetadata`): the schema lets unknown keys through, so an ADK session exports as imported.
 */

export interface FunctionCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Streamed argument chunks (genai `partial_args`), kept as written. */
  partialArgs?: Array<Record<string, unknown>>;
  willContinue?: boolean;
}

export interface FunctionResponse {
  id: string;
  name: string;
  response: Record<string, unknown>;
  /** A streaming (long-running) tool's response that more will follow. */
  willContinue?: boolean;
  /** genai's `scheduling` (`SILENT`, `WHEN_IDLE`, `INTERRUPT`). */
  scheduling?: string;
}

export interface InlineData {
  mimeType: string;
  /** base64 */
  data: string;
  displayName?: string;
}

/** A file referenced by URI (`gs://`, `https://`, a Files API URI), not embedded. */
export interface FileData {
  fileUri: string;
  mimeType?: string;
  displayName?: string;
}

/** Code a model wrote for a code-execution tool. */
export interface ExecutableCode {
  code: string;
  /** genai's language enum, e.g. `PYTHON`. */
  language?: string;
}

/** What running `ExecutableCode` gave. */
export interface CodeExecutionResult {
  /** genai's outcome enum, e.g. `OUTCOME_OK`, `OUTCOME_FAILED`. */
  outcome: string;
  output?: string;
}

/**
 * Exactly one of `text`, `functionCall`, `functionResponse`, `inlineData`, `fileData`,
 * `executableCode`, `codeExecutionResult` is set.
 */
export interface Part {
  text?: string;
  /** A model's reasoning; left out of summaries. */
  thought?: boolean;
  /** Opaque provider signature that must travel back with a thought or call (Gemini). */
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  inlineData?: InlineData;
  fileData?: FileData;
  executableCode?: ExecutableCode;
  codeExecutionResult?: CodeExecutionResult;
}

export type Role = 'user' | 'model';

export interface Content {
  role: Role;
  parts: Part[];
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  /** Reasoning tokens (Gemini thinking models). */
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  /** Per-modality breakdowns, as the provider reported them. */
  promptTokensDetails?: ModalityTokenCount[];
  candidatesTokensDetails?: ModalityTokenCount[];
  cacheTokensDetails?: ModalityTokenCount[];
  toolUsePromptTokensDetails?: ModalityTokenCount[];
  /** Vertex AI's billing class, e.g. `ON_DEMAND`. */
  trafficType?: string;
}

export interface ModalityTokenCount {
  /** e.g. `TEXT`, `IMAGE`, `AUDIO`. */
  modality?: string;
  tokenCount?: number;
}

export type CompactionTrigger = 'token_threshold' | 'sliding_window' | 'overflow' | 'manual';

/** How a summary was asked for (`EventCompaction.summaryRequest`). */
export interface SummaryRequestNote {
  via: 'agent_prefix' | 'standalone';
  /** `standalone` only: why the agent's prefix was not reused. */
  reason?: string;
}

export interface EventCompaction {
  /** First `seq` covered by this (rolling) summary, inclusive. */
  startSeq: number;
  /** Last `seq` covered, inclusive. Events with a larger `seq` stay visible. */
  endSeq: number;
  /** ADK interop only: ranges are decided by `seq`, never by time. */
  startTimestamp: number;
  endTimestamp: number;
  compactedContent: Content;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  /** The model id or name of the summarizer that actually wrote `compactedContent`. */
  summarizer: string;
  /** Set when a fallback wrote the summary: the summarizer that failed first, and why. */
  fallback?: { from: string; reason: string };
  /**
   * How the summarizer was asked (docs/cost.md#summaries-that-reuse-the-agents-cache):
   * `agent_prefix` re-sent the agent's last request (its cached prefix) with a summary
   * instruction; `standalone` sent a request of its own, `reason` saying why the agent's prefix
   * was not used while its reuse was on. Absent: standalone (reuse off, or an older writer).
   */
  summaryRequest?: SummaryRequestNote;
  /**
   * `false`: the summary covers only its own range, not what came before it (ADK's sliding
   * window writes such summaries; imported ADK compactions are marked so). Such a checkpoint
   * is viewed as ADK would send it (`expandView`). Absent or `true`: orrery's rolling summary of
   * everything up to `endSeq`.
   */
  rolling?: boolean;
}

/**
 * The cheap tier before a summary (docs/architecture.md#elision-the-cheap-tier): a view rule,
 * recorded in the log so every reader assembles the same view. In the view, each function
 * response stored at `seq <= throughSeq` whose serialized `response` is over `minOutputBytes`
 * UTF-8 bytes is replaced by a short placeholder that names the tool, the size and the `seq` to
 * recall. The newest valid rule in the view's tail applies; each one the runtime writes has a
 * larger `throughSeq` than the last. The event carries no content.
 */
export interface EventElision {
  /** Last `seq` whose large tool outputs are elided, inclusive; below the event's own `seq`. */
  throughSeq: number;
  /** Outputs of at most this many bytes (serialized `response`) stay whole. */
  minOutputBytes: number;
  trigger: CompactionTrigger;
  /** Estimated tokens of the next request before and after the rule. */
  tokensBefore: number;
  tokensAfter: number;
}

export interface ToolConfirmation {
  hint?: string;
  confirmed?: boolean;
  payload?: unknown;
}

export interface EventActions {
  stateDelta?: Record<string, unknown>;
  artifactDelta?: Record<string, number>;
  transferToAgent?: string;
  escalate?: boolean;
  skipSummarization?: boolean;
  /** Keyed by the function call id that waits for a confirmation. */
  requestedToolConfirmations?: Record<string, ToolConfirmation>;
  /** Keyed by the function call id that waits for an auth response. */
  requestedAuthConfigs?: Record<string, unknown>;
  compaction?: EventCompaction;
  /** A view rule eliding bulky old tool outputs (an event with no content). */
  elision?: EventElision;
  /**
   * A summary of one branch's view (docs/workflows.md#compaction-per-branch), stored on that
   * branch: only the branch and its descendants use it as their checkpoint.
   */
  branchCompaction?: EventCompaction;
  /**
   * ADK's rewind: this event annuls every event from the first one of that invocation up to
   * itself (they stay stored; the view leaves them out, as ADK does).
   */
  rewindBeforeInvocationId?: string;
  [key: string]: unknown;
}

/** An event as a caller builds it, before the store assigns `seq`. */
export interface NewEvent {
  id: string;
  invocationId: string;
  /** `"user"` or an agent name. */
  author: string;
  /** Epoch seconds (float). */
  timestamp: number;
  branch?: string;
  content?: Content;
  usageMetadata?: UsageMetadata;
  actions: EventActions;
  longRunningToolIds?: string[];
  partial?: boolean;
  turnComplete?: boolean;
  finishReason?: string;
  errorCode?: string;
  errorMessage?: string;
  /** Free-form metadata; ADK export carries orrery's own compaction fields here. */
  customMetadata?: Record<string, unknown>;
}

/** A stored event. `seq` is strictly increasing within a session and never reused. */
export interface Event extends NewEvent {
  seq: number;
}

/** A compaction event: `actions.compaction` set, no content. */
export type CompactionEvent = Event & { actions: EventActions & { compaction: EventCompaction } };

export interface SessionKey {
  appName: string;
  userId: string;
  sessionId: string;
}

export interface Session extends SessionKey {
  state: Record<string, unknown>;
  /** Epoch seconds of the last append. */
  lastUpdateTime: number;
  /**
   * What was loaded: the active view's events (checkpoint + tail) by default, or full
   * history when asked for.
   */
  events: Event[];
}
