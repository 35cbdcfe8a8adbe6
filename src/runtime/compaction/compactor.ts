/**
 * One compaction attempt end to end (docs/architecture.md#the-runtime): load the view, plan,
 * then either record an elision rule (the cheap tier, docs/architecture.md#elision-the-cheap-tier)
 * or summarize and append conditionally on the checkpoint the plan was computed from. Summarizer
 * failures and lost races are outcomes in the report, never exceptions for the user's turn.
 */
import { COMPACTION_DEFAULTS, validateEventsCompactionConfig } from '../../compaction/config.js';
import { elideEvent, latestElision } from '../../compaction/elision.js';
import { InvalidConfigError } from '../../compaction/errors.js';
import { estimateContentTokens, estimateEventTokens } from '../../compaction/token-estimate.js';
import { planTieredCompaction } from '../../compaction/triggers.js';
import type {
  CompactionPlan,
  CompactionRequest,
  CostChoiceNote,
  DeadCall,
  ElisionPlan,
  EventsCompactionConfig,
  EventsSummarizer,
  TieredCompactionDecision,
} from '../../compaction/types.js';
import { newId } from '../../events/event-helpers.js';
import type {
  CompactionEvent,
  CompactionTrigger,
  Event,
  EventElision,
  NewEvent,
  SessionKey,
  SummaryRequestNote,
} from '../../events/types.js';
import { CompactionConflictError } from '../../sessions/errors.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { errorMessage } from '../../util/error-message.js';
import { loadActiveView } from '../view/active-view.js';
import { type AgentPrefixSource, agentPrefixSummary } from './agent-prefix.js';
import { appendBranchCompaction } from './branch-compaction.js';
import type { ChunkProgress } from './chunked-summary.js';
import { compactionEvent, withDeadCallsNote } from './compaction-event.js';
import { type CoolDownDetails, coolDownReason, summarizePlan } from './summarize-plan.js';
import { SummarizerCoolDown } from './summarizer-cool-down.js';

/** `elided`: the cheap tier recorded an elision rule instead of a summary. */
export type CompactionOutcome = 'compacted' | 'elided' | 'skipped' | 'failed' | 'conflict';

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
  /** Name of the summarizer that wrote the summary (or the last one that failed to). */
  summarizer?: string;
  /** The fallback summarizer wrote the summary after the main one failed. */
  usedFallback?: boolean;
  /** Set when a fallback wrote the summary: who failed first and why (as on the event). */
  fallback?: { from: string; reason: string };
  /** How the summary was asked for (as on the event): the agent's cached prefix, or standalone. */
  summaryRequest?: SummaryRequestNote;
  /** Calls summarized without a result (their invocation ended). */
  deadCalls?: DeadCall[];
  /**
   * Which tier ran (docs/architecture.md#elision-the-cheap-tier): `elision` recorded a view rule,
   * `summary` ran the summarizer. Absent when neither ran (a skip before either).
   */
  tier?: 'elision' | 'summary';
  /** Elision: tool outputs at `seq <= elidedThroughSeq` over the rule's size are elided. */
  elidedThroughSeq?: number;
  /** Elision: outputs the new rule elides that the previous one did not. */
  elidedOutputs?: number;
  /** Elision: the stored rule. */
  elisionEvent?: Event;
  /**
   * The summarizer was not called because it is cooling down after a failure
   * (docs/resilience.md#summarizer-cool-down): on a skip, or on a summary the fallback wrote
   * without waiting for it. On a failure: the cool-down the failure started.
   */
  coolDown?: CoolDownDetails;
  /** Cost-aware compaction chose this attempt or its depth (docs/cost.md#cost-aware-compaction). */
  costChoice?: CostChoiceNote;
}

/** After this outcome the view changed as planned: a summary, or an elision rule. */
export function changedView(report: CompactionReport): boolean {
  return report.outcome === 'compacted' || report.outcome === 'elided';
}

export interface CompactorHooks {
  /**
   * Called before the summarizer runs; return `false` to skip this compaction. Returning
   * nothing (a `() => { ... }` hook) or `undefined` lets it run.
   */
  beforeCompaction?(
    plan: CompactionPlan,
  ): boolean | undefined | Promise<boolean | undefined> | void | Promise<void>;
  /** Called once per attempt with its outcome (metrics and logs hang here). */
  afterCompaction?(report: CompactionReport): void | Promise<void>;
  /** Each summarizer call that failed or timed out (not aborted), before the fallback. No throw. */
  summarizerFailed?(details: { summarizer: string; error: unknown }): void;
  /** Called after each chunk of a window over `SUMMARY_CHUNK_EVENTS`. Must not throw. */
  summaryProgress?(progress: ChunkProgress): void;
}

export interface CompactorOptions {
  sessionService: SessionService;
  config: EventsCompactionConfig;
  /** Used when `config.summarizer` is unset. */
  summarizer?: EventsSummarizer;
  /** Tried when the main summarizer fails (e.g. a `DigestSummarizer`). */
  fallbackSummarizer?: EventsSummarizer;
  hooks?: CompactorHooks;
  /**
   * The summarizers' cool-down, when it is shared (an adapter building a Compactor per call);
   * default: one of this Compactor's own, from `summarizerCoolDownMs`.
   */
  coolDown?: SummarizerCoolDown;
}

/** The cool-down a config asks for (its defaults when unset). */
export function coolDownFor(config: EventsCompactionConfig): SummarizerCoolDown {
  return new SummarizerCoolDown({
    baseMs: config.summarizerCoolDownMs ?? COMPACTION_DEFAULTS.summarizerCoolDownMs,
    maxMs: config.summarizerMaxCoolDownMs ?? COMPACTION_DEFAULTS.summarizerMaxCoolDownMs,
  });
}

export interface CompactOptions extends SessionKey, CompactionRequest {
  /**
   * The view as `loadView` would return it now (the caller just read it and nothing was written
   * since): planned from instead of reading it again.
   */
  stored?: StoredView;
  /**
   * The turn this attempt runs in (default `currentInvocationId`): a summarizer that failed in
   * it is not called again in it.
   */
  turnId?: string;
  /**
   * The agent's last request on the summarizer's own model (the Runner sets it when
   * `reuseAgentPrefix` is on): the summary is asked for on its cached prefix first
   * (docs/cost.md#summaries-that-reuse-the-agents-cache), the summarizer writing it otherwise.
   */
  agentPrefix?: AgentPrefixSource;
  signal?: AbortSignal;
}

/** Page size of the backwards overlap read. */
const OVERLAP_PAGE_SIZE = 200;

/** A report before the fields every attempt shares. */
type AttemptResult = Omit<CompactionReport, 'durationMs' | 'sessionId' | 'trigger'>;

function rangeOf(plan: CompactionPlan) {
  return { startSeq: plan.startSeq, endSeq: plan.endSeq, tokensBefore: plan.tokensBefore };
}

/**
 * One compaction attempt end to end: load view, plan, elide or summarize, append. Never throws
 * for summarizer or conflict failures.
 */
export class Compactor {
  private readonly sessionService: SessionService;
  private readonly config: EventsCompactionConfig;
  private readonly summarizer: EventsSummarizer;
  private readonly fallbackSummarizer?: EventsSummarizer;
  private readonly hooks: CompactorHooks;
  private readonly coolDown: SummarizerCoolDown;

  constructor(options: CompactorOptions) {
    // The same rules (and errors) as createEventsCompactionConfig, whatever built the config.
    const config = validateEventsCompactionConfig(options.config);
    const summarizer = config.summarizer ?? options.summarizer;
    if (!summarizer) {
      throw new InvalidConfigError({
        field: 'summarizer',
        value: undefined,
        message: 'the Compactor needs config.summarizer or options.summarizer',
      });
    }
    this.sessionService = options.sessionService;
    this.config = config;
    this.summarizer = summarizer;
    this.fallbackSummarizer = options.fallbackSummarizer;
    this.hooks = options.hooks ?? {};
    this.coolDown = options.coolDown ?? coolDownFor(config);
  }

  async compact(options: CompactOptions): Promise<CompactionReport> {
    const started = performance.now();
    const {
      appName,
      userId,
      sessionId,
      signal,
      stored: known,
      turnId,
      agentPrefix,
      ...request
    } = options;
    const key = { appName, userId, sessionId };
    const finish = async (report: AttemptResult) => {
      const full: CompactionReport = {
        sessionId,
        trigger: request.trigger,
        ...(request.costChoice && { costChoice: request.costChoice }),
        ...report,
        durationMs: performance.now() - started,
      };
      await this.hooks.afterCompaction?.(full);
      return full;
    };
    const stored =
      known ??
      (await loadActiveView({
        sessionService: this.sessionService,
        ...key,
        scope: request.scope,
        signal,
      }));
    const decision = await this.plan({ key, stored, request, signal });
    if (decision.kind === 'skip') {
      return finish({
        outcome: 'skipped',
        reason: decision.reason,
        tokensBefore: decision.tokensBefore,
      });
    }
    const branch = request.scope?.branch;
    if (decision.kind === 'elide') {
      return finish(await this.elide({ key, plan: decision, branch, signal }));
    }
    // An expanded view (imported ADK summaries, rewinds) has no checkpoint of its own: the new
    // summary is rolling from seq 1 and conditional on the stored checkpoint.
    const plan =
      stored.expandedFromCheckpointSeq === undefined
        ? decision
        : { ...decision, startSeq: 1, expectedCheckpointSeq: stored.expandedFromCheckpointSeq };
    if ((await this.hooks.beforeCompaction?.(plan)) === false) {
      return finish({ outcome: 'skipped', reason: 'hook', ...rangeOf(plan) });
    }
    return finish(
      await this.summarizeAndAppend({
        key,
        plan,
        overheadTokens: request.overheadTokens,
        rule: latestElision(stored.tail)?.actions.elision,
        turnId: turnId ?? request.currentInvocationId,
        // The request does not fit without it: never skipped, only spared the wait.
        required: request.force === true || request.trigger === 'overflow',
        branch,
        agentPrefix: agentPrefix && { source: agentPrefix, stored },
        signal,
      }),
    );
  }

  /** The pure plan for `stored`, reading the sliding window's overlap first. */
  private async plan(options: {
    key: SessionKey;
    stored: StoredView;
    request: CompactionRequest;
    signal: AbortSignal | undefined;
  }): Promise<TieredCompactionDecision> {
    const { key, stored, request, signal } = options;
    const overlapEvents =
      request.trigger === 'sliding_window' && stored.checkpoint
        ? await this.readOverlap(key, stored.checkpoint, signal)
        : undefined;
    // An expanded view is folded into a rolling summary: a rule over it would not survive that.
    const config =
      stored.expandedFromCheckpointSeq === undefined || !this.config.elision
        ? this.config
        : { ...this.config, elision: undefined };
    return planTieredCompaction({
      ...request,
      config,
      checkpoint: stored.checkpoint,
      tail: stored.tail,
      overlapEvents,
    });
  }

  /**
   * The cheap tier: append the elision rule (an ordinary append: a rule is a view rule over
   * stored events, right whatever else was written since; the session lease serializes turns).
   */
  private async elide(options: {
    key: SessionKey;
    plan: ElisionPlan;
    /** A branch's rule is stored on the branch: its siblings keep their whole outputs. */
    branch: string | undefined;
    signal: AbortSignal | undefined;
  }): Promise<AttemptResult> {
    const { key, plan, signal } = options;
    const elision: EventElision = {
      throughSeq: plan.throughSeq,
      minOutputBytes: plan.minOutputBytes,
      trigger: plan.trigger,
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
    };
    const details = {
      tier: 'elision' as const,
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
      elidedThroughSeq: plan.throughSeq,
      elidedOutputs: plan.newlyElided,
    };
    const event: NewEvent = {
      id: newId(),
      invocationId: newId(),
      author: 'user',
      timestamp: Date.now() / 1000,
      ...(options.branch !== undefined ? { branch: options.branch } : {}),
      actions: { elision },
    };
    try {
      const appended = await this.sessionService.appendEvent({ ...key, event, signal });
      return { outcome: 'elided', elisionEvent: appended, ...details };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      return { outcome: 'failed', reason: errorMessage(error), error, ...details };
    }
  }

  /** Summarize the plan's range and append the compaction conditionally. */
  private async summarizeAndAppend(options: {
    key: SessionKey;
    plan: CompactionPlan;
    overheadTokens: number | undefined;
    /** The elision rule in force: retained events count as the view shows them. */
    rule: EventElision | undefined;
    turnId: string | undefined;
    required: boolean;
    /** A branch's summary is stored on the branch (`branch-compaction.ts`). */
    branch: string | undefined;
    agentPrefix: { source: AgentPrefixSource; stored: StoredView } | undefined;
    signal: AbortSignal | undefined;
  }): Promise<AttemptResult> {
    const { key, plan, signal } = options;
    const range = rangeOf(plan);
    const timeoutMs = this.config.summarizerTimeoutMs ?? COMPACTION_DEFAULTS.summarizerTimeoutMs;
    const onPrefix =
      options.agentPrefix &&
      (await agentPrefixSummary({
        ...options.agentPrefix,
        plan,
        summarizer: this.summarizer,
        coolDown: this.coolDown,
        timeoutMs,
        signal,
      }));
    const summaryRequest = onPrefix && 'note' in onPrefix ? onPrefix.note : undefined;
    const summarized =
      onPrefix && 'summarized' in onPrefix
        ? onPrefix.summarized
        : await summarizePlan({
            plan,
            summarizer: this.summarizer,
            fallbackSummarizer: this.fallbackSummarizer,
            coolDown: this.coolDown,
            timeoutMs,
            turnId: options.turnId,
            required: options.required,
            onFailure: this.hooks.summarizerFailed,
            onProgress: this.hooks.summaryProgress,
            signal,
          });
    if ('coolingDown' in summarized) {
      return {
        outcome: 'skipped',
        reason: coolDownReason(summarized.coolingDown),
        summarizer: summarized.coolingDown.summarizer,
        coolDown: summarized.coolingDown,
        ...range,
      };
    }
    if ('error' in summarized) {
      // A caller's abort ends the turn; a failure is an outcome.
      if (signal?.aborted) throw signal.reason;
      return {
        outcome: 'failed',
        reason: errorMessage(summarized.error),
        error: summarized.error,
        summarizer: summarized.name,
        ...(summarized.coolDown ? { coolDown: summarized.coolDown } : {}),
        ...range,
      };
    }
    if (summarized.summary === null) {
      return {
        outcome: 'skipped',
        reason: 'summarizer_skipped',
        summarizer: summarized.name,
        ...range,
      };
    }
    const compactedContent = withDeadCallsNote(
      { role: 'model', parts: summarized.summary.content.parts },
      plan.deadCalls,
    );
    let tokensAfter = (options.overheadTokens ?? 0) + estimateContentTokens(compactedContent);
    for (const event of plan.retained) {
      tokensAfter += estimateEventTokens(elideEvent(event, options.rule));
    }
    const threshold = this.config.tokenThreshold;
    const ineffective = threshold !== undefined && threshold > 0 && tokensAfter >= threshold;
    const summary = summarized.summary;
    const request = summarized.summaryRequest ?? summaryRequest;
    const event = compactionEvent({
      plan,
      summarized,
      summary,
      compactedContent,
      tokensAfter,
      summaryRequest: request,
    });
    const details = {
      ...range,
      tier: 'summary' as const,
      tokensAfter,
      ineffective,
      summarizer: summarized.name,
      usedFallback: summarized.usedFallback,
      ...(summarized.fallback ? { fallback: summarized.fallback } : {}),
      ...(summarized.coolDown ? { coolDown: summarized.coolDown } : {}),
      ...(request ? { summaryRequest: request } : {}),
      deadCalls: plan.deadCalls,
    };
    try {
      const appended =
        options.branch === undefined
          ? await this.sessionService.appendCompaction({
              ...key,
              event,
              expectedCheckpointSeq: plan.expectedCheckpointSeq,
              signal,
            })
          : await appendBranchCompaction({
              sessionService: this.sessionService,
              key,
              event,
              branch: options.branch,
              expectedCheckpointSeq: plan.expectedCheckpointSeq,
              signal,
            });
      return { outcome: 'compacted', event: appended, ...details };
    } catch (error) {
      if (CompactionConflictError.isInstance(error)) {
        return { outcome: 'conflict', reason: error.message, error, ...details };
      }
      return { outcome: 'failed', reason: errorMessage(error), error, ...details };
    }
  }

  /** The raw events of the last `overlapSize` invocations the checkpoint covers, in `seq` order. */
  private async readOverlap(
    key: SessionKey,
    checkpoint: CompactionEvent,
    signal: AbortSignal | undefined,
  ): Promise<Event[]> {
    const wanted = this.config.overlapSize ?? 0;
    if (wanted <= 0) return [];
    const collected: Event[] = [];
    const invocations = new Set<string>();
    let beforeSeq: number | undefined = checkpoint.actions.compaction.endSeq + 1;
    while (beforeSeq !== undefined) {
      const page = await this.sessionService.listEvents({
        ...key,
        beforeSeq,
        order: 'desc',
        limit: OVERLAP_PAGE_SIZE,
        signal,
      });
      for (const event of page.events) {
        if (event.actions?.compaction) continue;
        if (!invocations.has(event.invocationId)) {
          if (invocations.size === wanted) return collected.reverse();
          invocations.add(event.invocationId);
        }
        collected.push(event);
      }
      beforeSeq = page.events.length > 0 ? page.nextCursor : undefined;
    }
    return collected.reverse();
  }
}
