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
 * `GET .../sessions/:session/view?offset=&limit=`: exactly the events the next request holds, in
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

/** `GET .../sessions/:session/chart`. */
export interface ChartResponse {
  threshold: number | null;
  points: ChartPoint[];
  /** Each compaction that became the checkpoint, and the model call (1-based) it preceded. */
  compactions: Array<{ seq: number; call: number }>;
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
