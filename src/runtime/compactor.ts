// CONTRACT STUB — implemented by the core-logic work. Signatures are fixed; bodies are not.
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import type { CompactionEvent, CompactionTrigger, SessionKey } from '../events/types.js';
import type { SessionService } from '../sessions/session-service.js';

export type CompactionOutcome = 'compacted' | 'skipped' | 'failed' | 'conflict';

export interface CompactionReport {
  sessionId: string;
  trigger: CompactionTrigger;
  outcome: CompactionOutcome;
  /** Why it skipped, or the error's message when it failed. */
  reason?: string;
  startSeq?: number;
  endSeq?: number;
  tokensBefore: number;
  tokensAfter?: number;
  durationMs: number;
  /** The compaction did not bring the estimate under the threshold. */
  ineffective?: boolean;
  event?: CompactionEvent;
  error?: unknown;
}

export interface CompactorHooks {
  /** Called before the summarizer runs; return `false` to skip this compaction. */
  beforeCompaction?(
    plan: import('../compaction/types.js').CompactionPlan,
  ): void | boolean | Promise<void | boolean>;
  /** Called once per attempt with its outcome (metrics and logs hang here). */
  afterCompaction?(report: CompactionReport): void | Promise<void>;
}

export interface CompactorOptions {
  sessionService: SessionService;
  config: EventsCompactionConfig;
  /** Used when `config.summarizer` is unset. */
  summarizer?: EventsSummarizer;
  /** Tried when the main summarizer fails (e.g. a `DigestSummarizer`). */
  fallbackSummarizer?: EventsSummarizer;
  hooks?: CompactorHooks;
}

export interface CompactOptions extends SessionKey {
  trigger: CompactionTrigger;
  agentName?: string;
  branch?: string;
  overheadTokens?: number;
  currentInvocationId?: string;
  retention?: { events?: number; tokens?: number };
  force?: boolean;
  signal?: AbortSignal;
}

/** One compaction attempt end to end: load view, plan, summarize, conditional append. Never throws for summarizer or conflict failures. */
export class Compactor {
  constructor(options: CompactorOptions) {
    throw new Error('not implemented');
  }

  async compact(options: CompactOptions): Promise<CompactionReport> {
    throw new Error('not implemented');
  }
}
