/**
 * orrery's event model (SPEC §1). The JSON shape is ADK's (camelCase) so sessions round-trip
 * with ADK; `seq` is orrery's own: a per-session integer assigned by the store at append.
 */

export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

export interface FunctionCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FunctionResponse {
  id: string;
  name: string;
  response: Record<string, unknown>;
}

export interface InlineData {
  mimeType: string;
  /** base64 */
  data: string;
}

/** Exactly one of `text`, `functionCall`, `functionResponse`, `inlineData` is set. */
export interface Part {
  text?: string;
  /** A model's reasoning; left out of summaries. */
  thought?: boolean;
  /** Opaque provider signature that must travel back with a thought or call (Gemini). */
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  inlineData?: InlineData;
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
}

export type CompactionTrigger = 'token_threshold' | 'sliding_window' | 'overflow' | 'manual';

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
