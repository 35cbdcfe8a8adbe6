/**
 * One replayed session's bookkeeping (docs/architecture.md#when-compaction-runs): each model
 * call's request prepared as the Runner's ContextGuard prepares it and measured, each event
 * appended, and the after-invocation triggers run as the Runner runs them, every compaction
 * recorded by its position in the replayed events.
 */
import { branchOf } from '../../compaction/branch-view.js';
import { resolveReuseAgentPrefix } from '../../compaction/config.js';
import { countCompletedInvocations } from '../../compaction/triggers.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import type { Event, NewEvent, Part, SessionKey } from '../../events/types.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { type CompactionReport, Compactor } from '../compaction/compactor.js';
import { ContextGuard } from '../compaction/context-guard.js';
import {
  type CostAwareModel,
  costAwareDepth,
  lazyCostAwareModel,
} from '../compaction/cost-aware.js';
import { RequestMeasure } from '../compaction/request-measure.js';
import { SummarizerCoolDown } from '../compaction/summarizer-cool-down.js';
import { UncompactedViewTokens } from '../compaction/uncompacted-view-tokens.js';
import { hasUnpaired } from '../view/unpaired-calls.js';
import { estimateView, extendView, RECORDED_MODEL, usageBlind } from './replay-view.js';
import type { ReplayBranch, ReplayCompaction, ReplayElision, ReplayRequest } from './types.js';

/** How the replay estimates stored parts and events (a `PartTokens` remembers them). */
export interface ReplayEstimates {
  part: (part: Part) => number;
  event: (event: Event) => number;
}

export interface ReplaySessionOptions {
  service: SessionService;
  key: SessionKey;
  config: EventsCompactionConfig;
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
  /** Counted in every request: instruction and tool declarations. */
  overhead: { tokens: number; bytes: number };
  estimates: ReplayEstimates;
  /**
   * The transcript has workflow branches: each model call is prepared on its event's branch
   * view, after-invocation compaction on the trunk's (docs/workflows.md#adk-sessions-and-replay).
   */
  scoped?: boolean;
  signal?: AbortSignal;
}

export class ReplaySession {
  readonly compactions: ReplayCompaction[] = [];
  readonly elisions: ReplayElision[] = [];
  readonly failures: string[] = [];
  readonly requests: ReplayRequest[] = [];
  /** Requests that held an unpaired call or response. */
  orphans = 0;
  /** Scoped replays: each request's branch (`""` the trunk), in request order. */
  private readonly requestBranches: string[] = [];
  private readonly orphanBranches: string[] = [];
  private readonly options: ReplaySessionOptions;
  /** Store seq -> position in the replayed events (1-based). */
  private readonly positions = new Map<number, number>();
  // Every request's figures are kept current as events are appended, never recounted whole.
  private readonly uncompacted: UncompactedViewTokens;
  private readonly measure: RequestMeasure;
  private readonly compactor: Compactor;
  private readonly guard: ContextGuard;
  /**
   * The store's view as the Compactor sees it (`usageBlind`), extended by each append: the
   * replay is the store's only writer, so nothing is read back before a model call unless a
   * compaction attempt wrote (see `extendView`).
   */
  private known: StoredView | undefined;
  private readonly costModel: (() => Promise<CostAwareModel | undefined>) | undefined;
  /** The latest replayed event's time (cost-aware compaction's cache age). */
  private nowSeconds = 0;
  /** A compaction attempt inside `guard.prepare` failed: its view may not be the store's. */
  private attemptFailed = false;

  constructor(options: ReplaySessionOptions) {
    this.options = options;
    const { estimates, config } = options;
    this.uncompacted = new UncompactedViewTokens({ estimatePart: estimates.part });
    this.measure = new RequestMeasure(options.overhead, { estimatePart: estimates.part });
    const sessionService = usageBlind(options.service);
    this.compactor = new Compactor({
      sessionService,
      config,
      summarizer: options.summarizer,
      fallbackSummarizer: options.fallbackSummarizer,
      // A replay runs hours of turns in seconds: a wall-clock cool-down would skip every later
      // compaction after one failure, so each trigger tries as it did (docs/resilience.md).
      coolDown: new SummarizerCoolDown({ baseMs: 0, maxMs: 1 }),
    });
    // Each request is prepared as the Runner prepares it: token trigger, byte ceiling, truncation.
    // Replay prices a summary on the agent's own model as the Runner asks it (replay-cost.ts).
    const costAware = config.costAware;
    this.costModel = lazyCostAwareModel(
      config,
      undefined,
      costAware !== undefined &&
        resolveReuseAgentPrefix(config) &&
        (costAware.summarizerPrice ?? costAware.price) === costAware.price,
    );
    this.guard = new ContextGuard({
      sessionService,
      config,
      estimateEvent: estimates.event,
      costModel: this.costModel,
      compact: async ({ key, ...request }) => {
        const report = await this.compactor.compact({ ...key, ...request });
        this.record(report);
        // The guard reads the store again after a compaction, not after a failed attempt.
        if (report.outcome === 'failed' || report.outcome === 'conflict') {
          this.attemptFailed = true;
        }
        return report;
      },
    });
  }

  /** The request `event`'s model call would have held: prepared, then measured. */
  async measureModelCall(event: NewEvent): Promise<void> {
    const { key, overhead, signal } = this.options;
    this.attemptFailed = false;
    const scoped = this.options.scoped === true;
    const branch = branchOf(event);
    const prepared = await this.guard.prepare({
      key,
      agentName: event.author,
      branch: event.branch,
      ...(scoped && { scope: { branch } }),
      model: RECORDED_MODEL,
      overhead,
      invocationId: event.invocationId,
      // A scoped view is not the store's: the guard reads the branch's view itself.
      stored: scoped ? undefined : this.known,
      // The recorded answer's time stands for the request's (cost-aware compaction's cache age).
      nowSeconds: event.timestamp,
      signal,
    });
    this.known = this.attemptFailed || scoped ? undefined : prepared.stored;
    const { contents } = prepared.view;
    if (scoped) this.requestBranches.push(branch ?? '');
    if (hasUnpaired(contents)) {
      this.orphans++;
      if (scoped) this.orphanBranches.push(branch ?? '');
    }
    const size = this.measure.measure(contents);
    this.requests.push({
      withCompaction: size.tokens,
      withoutCompaction: this.uncompacted.total(overhead.tokens),
      bytes: size.bytes,
      outputTokens: this.partsTokens(event.content?.parts),
      timestamp: event.timestamp,
    });
  }

  /** Stores `event`, the `position`-th replayed event (1-based). */
  async append(event: NewEvent, position: number): Promise<void> {
    const { service, key, signal } = this.options;
    const stored = await service.appendEvent({ ...key, event, signal });
    this.nowSeconds = stored.timestamp;
    this.positions.set(stored.seq, position);
    this.uncompacted.append(stored);
    this.known = this.options.scoped ? undefined : extendView(this.known, stored);
  }

  /** Scoped replays: figures per branch, the trunk first, then branches by name. */
  branchFigures(): ReplayBranch[] {
    const figures = new Map<string, ReplayBranch>();
    const of = (branch: string) => {
      let entry = figures.get(branch);
      if (!entry) {
        entry = {
          branch,
          modelCalls: 0,
          maxViewTokens: 0,
          maxViewBytes: 0,
          compactions: 0,
          orphans: 0,
        };
        figures.set(branch, entry);
      }
      return entry;
    };
    of('');
    this.requestBranches.forEach((branch, index) => {
      const entry = of(branch);
      const request = this.requests[index]!;
      entry.modelCalls++;
      entry.maxViewTokens = Math.max(entry.maxViewTokens, request.withCompaction);
      entry.maxViewBytes = Math.max(entry.maxViewBytes, request.bytes);
    });
    for (const compaction of this.compactions) of(compaction.branch ?? '').compactions++;
    for (const branch of this.orphanBranches) of(branch).orphans++;
    return [...figures.values()].sort((left, right) =>
      left.branch < right.branch ? -1 : left.branch > right.branch ? 1 : 0,
    );
  }

  /**
   * The sliding window and the token trigger after an invocation. As the Runner does, the
   * Compactor is only called when its trigger is due on the view the replay knows (a skip
   * records nothing): the estimate then costs only the new events.
   */
  async afterInvocation(): Promise<void> {
    const { config, overhead, estimates } = this.options;
    const known = this.known;
    const interval = config.compactionInterval;
    if (
      interval !== undefined &&
      (!known || (interval > 0 && countCompletedInvocations({ tail: known.tail }) >= interval))
    ) {
      await this.compactAfter('sliding_window');
    }
    const threshold = config.tokenThreshold;
    if (
      threshold &&
      (!this.known || estimateView(this.known, overhead.tokens, estimates.event) >= threshold)
    ) {
      await this.compactAfter('token_threshold');
    }
  }

  private async compactAfter(trigger: 'sliding_window' | 'token_threshold'): Promise<void> {
    const { key, overhead, signal, config, estimates } = this.options;
    const known = this.known;
    const depth =
      trigger === 'token_threshold' && known && !this.options.scoped
        ? await costAwareDepth({
            costModel: this.costModel,
            config,
            checkpoint: known.checkpoint,
            tail: known.tail,
            requestTokens: estimateView(known, overhead.tokens, estimates.event),
            overheadTokens: overhead.tokens,
            nowSeconds: this.nowSeconds,
            estimateEvent: estimates.event,
          })
        : {};
    const report = await this.compactor.compact({
      ...key,
      trigger,
      ...depth,
      overheadTokens: overhead.tokens,
      ...(this.options.scoped && { scope: {} }),
      stored: this.known,
      signal,
    });
    this.record(report);
    if (report.outcome !== 'skipped') this.known = undefined;
  }

  /** A compaction or elision rule by replayed positions, or a failure's reason; skips record nothing. */
  private record(report: CompactionReport): void {
    if (report.outcome === 'failed' || report.outcome === 'conflict') {
      this.failures.push(`${report.trigger}: ${report.reason ?? report.outcome}`);
      return;
    }
    if (report.outcome === 'elided' && report.elidedThroughSeq !== undefined) {
      this.elisions.push({
        trigger: report.trigger,
        throughSeq: this.positionOf(report.elidedThroughSeq),
        elidedOutputs: report.elidedOutputs ?? 0,
        tokensBefore: report.tokensBefore,
        tokensAfter: report.tokensAfter ?? 0,
        beforeCall: this.requests.length + 1,
      });
      return;
    }
    if (
      report.outcome !== 'compacted' ||
      report.startSeq === undefined ||
      report.endSeq === undefined
    ) {
      return;
    }
    const fallback =
      report.event?.actions.compaction.fallback ??
      (report.usedFallback ? { from: this.options.summarizer.name } : undefined);
    this.compactions.push({
      trigger: report.trigger,
      startSeq: this.positionOf(report.startSeq),
      endSeq: this.positionOf(report.endSeq),
      tokensBefore: report.tokensBefore,
      tokensAfter: report.tokensAfter ?? 0,
      beforeCall: this.requests.length + 1,
      summarizer: report.event?.actions.compaction.summarizer ?? report.summarizer ?? '',
      ...(fallback ? { fallback } : {}),
      summaryTokens: this.partsTokens(report.event?.actions.compaction.compactedContent.parts),
      ...(report.event?.branch ? { branch: report.event.branch } : {}),
      ...(report.costChoice ? { costChoice: report.costChoice } : {}),
    });
  }

  private partsTokens(parts: readonly Part[] | undefined): number {
    return (parts ?? []).reduce((total, part) => total + this.options.estimates.part(part), 0);
  }

  /** Store seq -> replay position; a compaction's seq maps to the event before it. */
  private positionOf(seq: number): number {
    for (let candidate = seq; candidate > 0; candidate--) {
      const found = this.positions.get(candidate);
      if (found !== undefined) return found;
    }
    return 0;
  }
}
