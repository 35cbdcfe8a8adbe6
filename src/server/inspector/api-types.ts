/**
 * The session inspector's JSON contract: what `/inspector/api/*` answers, shared by the routes
 * and the page (`assets/inspector/`). Every route follows the other routes' token rules: a token
 * limited to users sees only those users, and another user's session is a 404. See
 * `docs/architecture.md#inspector`.
 */
import type { CompactionTrigger } from '../../events/types.js';

/** The path prefix of every inspector API route. */
export const INSPECTOR_API_PREFIX = '/inspector/api';

/** `GET /inspector/api/sessions?limit=`: default and maximum. */
export const DEFAULT_SESSIONS_LIMIT = 50;
export const MAX_SESSIONS_LIMIT = 200;
/** `GET .../timeline?limit=`: default and maximum. */
export const DEFAULT_TIMELINE_LIMIT = 200;
export const MAX_TIMELINE_LIMIT = 1000;
/** A timeline event's `preview` is at most this many characters. */
export const PREVIEW_MAX_CHARS = 400;
/** `POST /inspector/api/replay`: default body limit (option `maxReplayBytes`). */
export const DEFAULT_MAX_REPLAY_BYTES = 32 * 1024 * 1024;

/** One row of the sessions list. */
export interface SessionRow {
  appName: string;
  userId: string;
  sessionId: string;
  /** Stored events, compactions included. */
  eventCount: number;
  /** Stored compaction events (`null` when the store could not count them cheaply). */
  compactionCount: number | null;
  /** Epoch seconds of the last append. */
  lastUpdateTime: number;
  /** Estimated tokens of the next request, as `GET .../view` counts them (`estimatedTokens`). */
  viewTokens: number;
}

/** `GET /inspector/api/sessions?app=&user=&limit=`: newest first. */
export interface SessionsResponse {
  sessions: SessionRow[];
  /** Apps of the listed sessions, sorted (for the filter). */
  apps: string[];
  /** Users of the listed sessions, sorted (for the filter). */
  users: string[];
  /**
   * Set when the store cannot list across users and apps (no `listAllSessions`): only the
   * token's users (or the `user` query) in the server's app (or the `app` query) are listed.
   */
  partial?: true;
}

export type TimelineEventKind =
  | 'user'
  | 'model'
  | 'tool-call'
  | 'tool-result'
  | 'compaction'
  | 'other';

/** One stored event, summarized for the timeline (the whole event: `GET .../events/:seq`). */
export interface TimelineEvent {
  seq: number;
  author: string;
  /** Epoch seconds (float). */
  timestamp: number;
  kind: TimelineEventKind;
  /** Estimated tokens the event adds to a request (a compaction: its summary). */
  tokens: number;
  /** Characters of its text, call arguments and results (a compaction: its summary). */
  chars: number;
  /** At most `PREVIEW_MAX_CHARS` characters: text, `name(args)`, or the result. */
  preview: string;
  /** Tool calls and results: the tool names, in order. */
  toolNames?: string[];
  /** A streamed partial event (never in a request). */
  partial?: true;
  /** The workflow branch it was stored on (docs/workflows.md); absent: the trunk. */
  branch?: string;
}

/** A compaction, drawn as a span over the `seq` range it summarizes. */
export interface CompactionSpan {
  /** The compaction event's own `seq`. */
  seq: number;
  startSeq: number;
  endSeq: number;
  trigger: CompactionTrigger;
  tokensBefore: number;
  tokensAfter: number;
  /** Who wrote the summary. */
  summarizer: string;
  /** Set when a fallback wrote it: who failed first and why. */
  fallback?: { from: string; reason: string };
  /** The summary text. */
  summary: string;
  /** A workflow branch's summary (docs/workflows.md): the branch it was stored on, and seen on. */
  branch?: string;
}

/** `GET .../sessions/:session/timeline?afterSeq=&limit=`: a page of the history, `seq` order. */
export interface TimelineResponse {
  events: TimelineEvent[];
  /** Pass as `afterSeq` for the next page; `null` at the end. */
  nextAfterSeq: number | null;
  /** Stored events in the whole session. */
  eventCount: number;
  /** Every compaction of the session on the first page (no `afterSeq`); empty on later pages. */
  compactions: CompactionSpan[];
}

/** `GET .../sessions/:session/events/:seq`: the stored event as stored (`Event` JSON). */
export type StoredEventResponse = Record<string, unknown>;

/**
 * `GET .../sessions/:session/view?offset=&limit=&branch=`: exactly the events the next request holds, in
 * order. Every one by default; `offset` (default 0) and `limit` (at most `MAX_TIMELINE_LIMIT`)
 * page a long view (a session never compacted holds its whole history).
 */
export interface ViewResponse {
  /** The checkpoint (the summary) first, then the tail: the page asked for. */
  events: TimelineEvent[];
  /** Events in the whole view. */
  total: number;
  /** Estimated tokens of the next request (as `GET .../view` counts `estimatedTokens`). */
  tokens: number;
  /** The served Runner's token threshold; `null` when its token trigger is off. */
  threshold: number | null;
}

/** One stored model call on the chart. */
export interface ChartPoint {
  /** 1-based model call number. */
  call: number;
  /** `seq` of the model response event. */
  seq: number;
  /** Estimated request tokens with the compactions stored before it. */
  tokens: number;
  /** Estimated request tokens had nothing been compacted. */
  uncompactedTokens: number;
}

/**
 * Estimated USD per stored model call (docs/cost.md#live-spend): the usage each call reported,
 * at the catalog price of its agent's model.
 */
export interface ChartCost {
  /** The served agent's model id, e.g. `google:gemini-2.5-flash`. */
  model: string;
  currency: 'USD';
  /** One per chart point, in call order; `null` for a call without usage or price. */
  perCallUsd: Array<number | null>;
}

/** `GET .../sessions/:session/chart`. */
export interface ChartResponse {
  threshold: number | null;
  points: ChartPoint[];
  /** Each compaction that became the checkpoint, and the model call (1-based) it preceded. */
  compactions: Array<{ seq: number; call: number }>;
  /** Present when the catalog prices at least one call's model. */
  cost?: ChartCost;
}

/** `POST /inspector/api/replay` body. Settings as `orrery replay`'s flags. */
export interface ReplayRequest {
  /** The transcript's text, in any format `orrery import` reads. */
  transcript: string;
  /** Its file name (sniffs the format; reported as `file`). Default `transcript`. */
  fileName?: string;
  /** `--threshold` (default 20000; 0 turns the token trigger off). */
  threshold?: number;
  /** `--retention` */
  retention?: number;
  /** `--interval` */
  interval?: number;
  /** `--overlap` */
  overlap?: number;
  /** `--max-request-bytes` */
  maxRequestBytes?: number;
  /** `digest` (default), or `none`: nothing is summarized (the uncompacted requests; the
   * other settings are then not used). Model summarizers need a key: not offered. */
  summarizer?: 'digest' | 'none';
  /**
   * `--price`: adds `cost` (dollars with and without compaction, `perCallUsd` per model call) at
   * this `provider:model`'s catalog prices (docs/cost.md#replay-cost). Unknown model: a 400.
   */
  price?: string;
}

/**
 * `POST /inspector/api/replay` answer: what `orrery replay --json` prints for that transcript
 * (`file` is `fileName`); an array for a multi-run file.
 */
export type ReplayResponse = Record<string, unknown> | Array<Record<string, unknown>>;

/** `GET .../sessions/:session/stream?afterSeq=`: one SSE `data:` message. */
export type StreamMessage =
  | { type: 'event'; event: TimelineEvent }
  | { type: 'compaction'; compaction: CompactionSpan };

/** One workflow branch of a session (docs/workflows.md#branches). */
export interface BranchRow {
  /** The dotted branch (`sweep.network`); `''` is the trunk. */
  branch: string;
  /** Stored events on it (its summaries included). */
  events: number;
  /** Its summaries: the trunk's compactions, or the branch's own `branchCompaction`s. */
  compactions: number;
}

/** `GET .../sessions/:session/branches`: the trunk first, then every branch, sorted. */
export interface BranchesResponse {
  branches: BranchRow[];
}

/**
 * `GET .../sessions/:session/branch-timeline?branch=&offset=&limit=`: the history as one branch
 * sees it (its own and its ancestors' events, its summaries, its descendants' results; never a
 * sibling's), paged by position.
 */
export interface BranchTimelineResponse {
  branch: string;
  /** The page asked for, in `seq` order. */
  events: TimelineEvent[];
  /** Events the branch sees in the whole session. */
  total: number;
  /** The `seq` of each of them, in order (row `i` of the filtered timeline is `seqs[i]`). */
  seqs: number[];
  /** The compactions seen on the branch: the trunk's and the summaries on its path. */
  compactions: CompactionSpan[];
}

/**
 * `GET /inspector/api/info`: what the page needs to know about this server before it draws a
 * session: its page size, and whether (and for which app) it runs the agent.
 */
export interface InspectorInfo {
  /** The served Runner's app: the chat box sends only to sessions of this app. */
  appName: string;
  /** The served agent's name. */
  agentName: string;
  /** `true` when the page may send messages (`POST /run_sse`) to this app's sessions. */
  canRun: boolean;
  /** Why it may not (read-only `orrery inspect`), when `canRun` is false. */
  readOnlyReason?: string;
  /** Events per timeline or view page the page asks for (`DEFAULT_TIMELINE_LIMIT`). */
  pageSize: number;
  /** The largest `limit` a timeline or view page takes (`MAX_TIMELINE_LIMIT`). */
  maxPageSize: number;
}

/** A model call's token counts as the provider reported them (`usageMetadata`). */
export interface CallUsage {
  /** Prompt tokens (`promptTokenCount`), cached ones included. */
  input?: number;
  /** Prompt tokens read from the provider's cache (`cachedContentTokenCount`). */
  cached?: number;
  /** Answer tokens (`candidatesTokenCount`). */
  output?: number;
  /** Reasoning tokens (`thoughtsTokenCount`). */
  thoughts?: number;
  total?: number;
}

/** A tool call the model made, and its result when one was stored. */
export interface CallToolUse {
  id: string;
  name: string;
  /** The arguments as JSON, at most `PREVIEW_MAX_CHARS` characters. */
  args: string;
  /** `seq` of the event holding its result; absent when none was stored (yet). */
  resultSeq?: number;
  /** The result as JSON, at most `PREVIEW_MAX_CHARS` characters. */
  result?: string;
}

/** One stored model call: what it was sent, what it answered, its tokens and time. */
export interface CallTraceEntry {
  /** 1-based model call number (the chart's `call`). */
  call: number;
  /** `seq` of the stored answer. */
  seq: number;
  invocationId: string;
  author: string;
  /** The request it was sent, as the store rebuilds it (the view as it stood then). */
  request: {
    /** The compaction whose summary opened it; `null`: none. */
    summarySeq: number | null;
    /** Its events after the summary: stored events with `fromSeq <= seq <= toSeq`, compactions
     * and partial events left out. `null` bounds: none (an empty tail). */
    fromSeq: number | null;
    toSeq: number | null;
    /** Events it held, the summary included. */
    eventCount: number;
    /** Estimated tokens, instruction and tools included (the chart's figure for this call). */
    estimatedTokens: number;
  };
  /** The answer, summarized as a timeline row. */
  answer: TimelineEvent;
  finishReason?: string;
  errorMessage?: string;
  /** Tokens the provider reported; absent when the answer stored none. */
  usage?: CallUsage;
  /** Epoch seconds the answer was stored. */
  timestamp: number;
  /**
   * Seconds between the last event stored before the call (its request's end) and the answer:
   * the call's time as the store can tell it (no start time is stored).
   */
  seconds: number | null;
  toolCalls: CallToolUse[];
}

/**
 * `GET .../sessions/:session/calls?offset=&limit=&order=`: a page of the model calls, oldest
 * first (`order=desc`: newest first; `offset` counts in that order). `limit` defaults to
 * `DEFAULT_TIMELINE_LIMIT`, at most `MAX_TIMELINE_LIMIT`.
 */
export interface CallTraceResponse {
  calls: CallTraceEntry[];
  /** Model calls in the whole session. */
  total: number;
}

/** `GET .../sessions/:session/calls/:call/request?offset=&limit=`: the request's events. */
export interface CallRequestResponse {
  call: number;
  /** The summary first (a compaction row), then the events, a page of them. */
  events: TimelineEvent[];
  /** Events in the whole request. */
  total: number;
  estimatedTokens: number;
}

/** `GET .../sessions/:session/state`: the session's state and which event last set each key. */
export interface StateResponse {
  state: Record<string, unknown>;
  /** Epoch seconds of the last append. */
  lastUpdateTime: number;
  /** For each key of `state`, the `seq` of the last event whose `stateDelta` set it (absent:
   * set when the session was created). */
  setBySeq: Record<string, number>;
}
