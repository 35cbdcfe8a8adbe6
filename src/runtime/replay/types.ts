/**
 * The replay report and options (docs/architecture.md#replay): declared apart from the loop
 * (`replay-run.ts`) and a session's bookkeeping (`replay-session.ts`), which both read them, so
 * the replay files import in one direction.
 */
import type {
  CostChoiceNote,
  EventsCompactionConfig,
  EventsSummarizer,
} from '../../compaction/types.js';
import type { CompactionTrigger, NewEvent } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';

export interface ReplayCompaction {
  trigger: CompactionTrigger;
  /** Position of the first summarized event in the replayed events, counting from 1. */
  startSeq: number;
  /** Position of the last summarized event, counting from 1. */
  endSeq: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The model call (1-based) it ran before; `modelCalls + 1` when it ran after the last. */
  beforeCall: number;
  /** The summarizer that wrote the summary (the fallback's name when the fallback did). */
  summarizer: string;
  /** Set when the fallback wrote it: the summarizer that failed first, and why when recorded. */
  fallback?: { from: string; reason?: string };
  /** Estimated tokens of the summary written (what the summarizer call output). */
  summaryTokens: number;
  /** The branch whose view it summarized (docs/workflows.md); absent: the trunk's. */
  branch?: string;
  /** Set when cost-aware compaction chose it or its depth (docs/cost.md#cost-aware-compaction). */
  costChoice?: CostChoiceNote;
}

/** One branch's requests in a replay with workflow branches (docs/workflows.md#adk-sessions-and-replay). */
export interface ReplayBranch {
  /** The branch (`sweep.network`); `""` is the trunk. */
  branch: string;
  modelCalls: number;
  /** Its largest request, in estimated tokens and in bytes. */
  maxViewTokens: number;
  maxViewBytes: number;
  /** Summaries of this branch's view. */
  compactions: number;
  /** Its requests that held an unpaired call or response. */
  orphans: number;
}

/**
 * An elision rule the replay recorded (docs/architecture.md#elision-the-cheap-tier): tool outputs
 * of the events up to `throughSeq` over the rule's size were replaced by placeholders.
 */
export interface ReplayElision {
  trigger: CompactionTrigger;
  /** Position of the last event the rule covers in the replayed events, counting from 1. */
  throughSeq: number;
  /** Tool outputs this rule elides that the previous one did not. */
  elidedOutputs: number;
  tokensBefore: number;
  tokensAfter: number;
  /** The model call (1-based) it ran before; `modelCalls + 1` when it ran after the last. */
  beforeCall: number;
}

/** Estimated tokens of one model request, with compaction and without (for a chart). */
export interface ReplayRequest {
  withCompaction: number;
  withoutCompaction: number;
  /** Bytes of the request with compaction: contents as JSON + instruction + tools. */
  bytes: number;
  /** Estimated tokens of the recorded answer (the model-authored event): the call's output. */
  outputTokens: number;
  /** The recorded event's timestamp (seconds), for cache TTLs. */
  timestamp: number;
}

export interface ReplayReport {
  /** The session the replay wrote (in `sessionService`). */
  sessionId: string;
  /** Events replayed (recorded compaction events are left out and re-decided). */
  events: number;
  modelCalls: number;
  compactions: ReplayCompaction[];
  /**
   * Elision rules recorded, in order: present only when there was one (`config.elision` set), so
   * a report with the tier off is unchanged.
   */
  elisions?: ReplayElision[];
  /** The largest request with compaction, in estimated tokens. */
  maxViewTokens: number;
  /** The largest request with compaction, in bytes (what `maxRequestBytes` bounds). */
  maxViewBytes: number;
  /** Requests that held a function call or response without its partner. */
  orphans: number;
  /** The stored history holds every replayed event, unchanged and in order. */
  lossless: boolean;
  /** Sums over every model call. */
  tokens: { withoutCompaction: number; withCompaction: number };
  /** One entry per model call, in order. */
  requests: ReplayRequest[];
  /** Compaction attempts that failed or lost a race (never fatal): `trigger: reason`. */
  failures: string[];
  /** Compaction events found in `events` (e.g. an ADK import), left out of the replay. */
  recordedCompactionsIgnored: number;
  /** Tokens counted in every request besides the contents (instruction, tool declarations). */
  overheadTokens: number;
  /**
   * Present only for a transcript with workflow branches (a dotted `branch`, as ADK's
   * `ParallelAgent` writes): each model call was prepared on its own branch's view, and these
   * are the figures per branch, trunk first.
   */
  branches?: ReplayBranch[];
}

export interface ReplayProgress {
  /** Events replayed so far. */
  index: number;
  total: number;
  compactions: number;
}

export interface ReplayTranscriptOptions {
  /** The recorded events, in order (e.g. `importTranscript(...).events`). */
  events: NewEvent[];
  /** Which triggers run and how much they keep (e.g. `createEventsCompactionConfig(...)`). */
  config: EventsCompactionConfig;
  /** Default: `config.summarizer`. A `DigestSummarizer` keeps the replay offline. */
  summarizer?: EventsSummarizer;
  /** Tried when the summarizer fails. */
  fallbackSummarizer?: EventsSummarizer;
  /** Where the replayed session is written. Default: a new `InMemorySessionService`. */
  sessionService?: SessionService;
  appName?: string;
  userId?: string;
  /** Default: `replay-<random>`; the session must not exist yet. */
  sessionId?: string;
  /** Initial state of the replayed session. */
  state?: Record<string, unknown>;
  /** The transcript's system instruction: counted in every request. */
  systemInstruction?: string;
  /** The transcript's tool declarations: counted in every request (as JSON). */
  tools?: unknown[];
  /** Overrides the overhead computed from `systemInstruction` and `tools`. */
  overheadTokens?: number;
  /**
   * Which events stand for a model request. Default: events authored by an agent with a model
   * role, except calls an importer synthesized to repair an orphan result.
   */
  isModelCall?: (event: NewEvent) => boolean;
  /** Called after each event is stored. */
  onProgress?: (progress: ReplayProgress) => void;
  signal?: AbortSignal;
}
