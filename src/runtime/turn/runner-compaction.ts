/**
 * The Runner's compaction (docs/architecture.md#when-compaction-runs): one attempt through the
 * Compactor, its report counted, traced, logged and shown to the plugins; the guard that
 * compacts before every model call; and the after-invocation triggers (sliding window, then
 * token threshold).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import { TailFacts } from '../../compaction/tail-facts.js';
import { estimateEventTokens } from '../../compaction/token-estimate.js';
import { estimateNextRequest } from '../../compaction/triggers.js';
import type {
  EventsCompactionConfig,
  EventsSummarizer,
  ViewScope,
} from '../../compaction/types.js';
import type { ViewWarning } from '../../compaction/view.js';
import type { SessionKey } from '../../events/types.js';
import { logCompaction } from '../../observability/compaction-log.js';
import type { CompactionMetrics } from '../../observability/metrics.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { fallbackReason } from '../../summarizers/fallback-reason.js';
import type { AgentPrefixSource } from '../compaction/agent-prefix.js';
import type { AgentRequestLog } from '../compaction/agent-request-log.js';
import { failedCompactionReport } from '../compaction/compaction-setup.js';
import { type CompactionReport, Compactor } from '../compaction/compactor.js';
import { ContextGuard, type GuardCompactOptions } from '../compaction/context-guard.js';
import {
  type CostAwareModel,
  costAwareDepth,
  lazyCostAwareModel,
} from '../compaction/cost-aware.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import { loadActiveView } from '../view/active-view.js';
import type { RunnerTelemetry } from './runner-telemetry.js';

export interface RunnerCompactionOptions {
  appName: string;
  sessionService: SessionService;
  config: EventsCompactionConfig;
  summarizer: EventsSummarizer;
  fallbackSummarizer?: EventsSummarizer;
  plugins: PluginManager;
  metrics: CompactionMetrics;
  logger: Logger;
  telemetry: RunnerTelemetry;
  onViewWarnings: (key: SessionKey, warnings: ViewWarning[]) => void;
  /**
   * Set when summaries reuse the agent's cached prefix (`reuseAgentPrefix`): the agents' last
   * requests, and the model id the summarizer runs on (only that model's requests are reused).
   */
  agentPrefix?: { requests: AgentRequestLog; modelId: string };
}

/** What the after-invocation triggers need of the invocation that just ended. */
export interface AfterInvocationOptions {
  key: SessionKey;
  agentName: string;
  branch?: string;
  /** Under a workflow with branches: the trunk's scoped view (docs/workflows.md). */
  scope?: ViewScope;
  overheadTokens: number;
  /** The stored view as `loadView` would return it now, when the invocation knows it. */
  stored?: StoredView;
  /** The invocation that just ended: a summarizer that failed in it is not called again. */
  turnId?: string;
  signal?: AbortSignal;
}

export class RunnerCompaction {
  readonly guard: ContextGuard;
  private readonly options: RunnerCompactionOptions;
  private readonly compactor: Compactor;
  /** The session a compaction hook runs for (hooks only receive the plan or the report). */
  private readonly scope = new AsyncLocalStorage<SessionKey>();
  /** Cost-aware compaction's prices, looked up at first use (docs/cost.md#cost-aware-compaction). */
  private readonly costModel: (() => Promise<CostAwareModel | undefined>) | undefined;
  /** Each view's completed invocations and elision rule, extended turn by turn. */
  private readonly tailFacts = new TailFacts();

  constructor(options: RunnerCompactionOptions) {
    this.options = options;
    const { sessionService, config, plugins, metrics, logger } = options;
    this.costModel = lazyCostAwareModel(
      config,
      () => options.summarizer.name,
      options.agentPrefix !== undefined,
    );
    this.compactor = new Compactor({
      sessionService,
      config: { ...config, summarizer: options.summarizer },
      fallbackSummarizer: options.fallbackSummarizer,
      hooks: {
        summarizerFailed: ({ summarizer: name, error }) => {
          metrics.recordSummarizerFailure(name);
          logger.warn(
            { msgType: 'summarizer_failure', summarizer: name, error: fallbackReason(error) },
            `summarizer '${name}' failed`,
          );
        },
        summaryProgress: (progress) => {
          logger.info(
            { msgType: 'compaction_progress', ...progress },
            `compaction progress: ${progress.eventsDone}/${progress.events} events (chunk ${progress.chunk}/${progress.chunks})`,
          );
        },
        beforeCompaction: (plan) =>
          plugins.beforeCompaction({
            appName: options.appName,
            ...this.scope.getStore(),
            plan,
          }),
        afterCompaction: (report) => this.afterCompaction(report),
      },
    });
    this.guard = new ContextGuard({
      sessionService,
      config,
      compact: (compactOptions) => this.compact(compactOptions),
      costModel: this.costModel,
      onViewWarnings: ({ key, warnings }) => options.onViewWarnings(key, warnings),
    });
  }

  private async afterCompaction(report: CompactionReport): Promise<void> {
    const { appName, metrics, logger, plugins, telemetry } = this.options;
    const key = this.scope.getStore();
    metrics.recordCompaction(report);
    telemetry.traceCompaction(report, key);
    logCompaction({ logger, report, appName, userId: key?.userId });
    try {
      await plugins.afterCompaction({ appName, ...key, report });
    } catch (error) {
      logger.warn({ error: String(error) }, 'afterCompaction plugin failed');
    }
  }

  /** One compaction attempt; failures are logged and counted, never thrown (except aborts). */
  async compact(options: GuardCompactOptions): Promise<CompactionReport> {
    const { key, ...rest } = options;
    const agentPrefix = this.agentPrefixFor(key, options.scope?.branch);
    // A beforeCompaction plugin sees the plan's events: let it have its own copies, as before.
    if (this.options.plugins.plugins.length > 0) rest.stored = undefined;
    const started = performance.now();
    try {
      return await this.scope.run(key, () =>
        this.compactor.compact({ ...key, ...rest, agentPrefix }),
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const report = failedCompactionReport({
        sessionId: key.sessionId,
        trigger: options.trigger,
        error,
        durationMs: performance.now() - started,
      });
      await this.scope.run(key, () => this.afterCompaction(report));
      return report;
    }
  }

  /** The agent's last request on the summarizer's model, or why there is none to reuse. */
  private agentPrefixFor(
    key: SessionKey,
    branch: string | undefined,
  ): AgentPrefixSource | undefined {
    const agentPrefix = this.options.agentPrefix;
    if (!agentPrefix) return undefined;
    const found = agentPrefix.requests.lookup(key, branch);
    if ('missing' in found) return found;
    if (found.model.modelId !== agentPrefix.modelId) {
      return {
        missing: `model_differs: the agent's last request went to '${found.model.modelId}', the summarizer runs on '${agentPrefix.modelId}'`,
      };
    }
    return { recorded: found };
  }

  /**
   * Whether `afterInvocation` would try to compact `stored` (a trigger is due), without reading
   * or writing: the Runner asks it before the turn's last append, with that event in `stored`.
   */
  dueAfterInvocation(options: AfterInvocationOptions & { stored: StoredView }): boolean {
    const { tokenThreshold } = this.options.config;
    const viewKey = afterViewKey(options);
    if (this.windowDue(viewKey, options.stored)) return true;
    return tokenThreshold ? this.estimate(viewKey, options).tokens >= tokenThreshold : false;
  }

  /** The sliding window's trigger (when configured). */
  private windowDue(viewKey: string, stored: StoredView): boolean {
    const interval = this.options.config.compactionInterval;
    if (!interval) return false;
    return this.tailFacts.completedInvocations({ viewKey, events: stored.tail }) >= interval;
  }

  /** The token trigger's estimate of the next request on `stored`. */
  private estimate(viewKey: string, options: AfterInvocationOptions & { stored: StoredView }) {
    const { stored } = options;
    return estimateNextRequest({
      checkpoint: stored.checkpoint,
      tail: stored.tail,
      agentName: options.agentName,
      branch: options.branch,
      overheadTokens: options.overheadTokens,
      latestElision: this.tailFacts.latestElision({ viewKey, events: stored.tail }) ?? null,
    });
  }

  /** Sliding window first (if configured and due), then the token trigger. */
  async afterInvocation(options: AfterInvocationOptions): Promise<void> {
    const { config, sessionService } = this.options;
    const { key, signal } = options;
    const common = {
      key,
      agentName: options.agentName,
      branch: options.branch,
      scope: options.scope,
      overheadTokens: options.overheadTokens,
      turnId: options.turnId,
      signal,
    };
    // One view read serves both checks unless the window compacted in between.
    const load = () => loadActiveView({ sessionService, ...key, scope: options.scope, signal });
    let stored = options.stored ?? (await load());
    // Whether `stored` is still what the store holds, so the compactor need not read it again.
    let current = true;
    const viewKey = afterViewKey(options);
    if (this.windowDue(viewKey, stored)) {
      const report = await this.compact({ ...common, stored, trigger: 'sliding_window' });
      if (report.outcome === 'compacted') {
        stored = await load();
      } else if (report.outcome !== 'skipped') {
        // The attempt may have written (a lost race): the compactor reads the store itself.
        current = false;
      }
    }
    if (config.tokenThreshold) {
      const estimate = this.estimate(viewKey, { ...options, stored });
      if (estimate.tokens >= config.tokenThreshold) {
        const depth = await costAwareDepth({
          costModel: this.costModel,
          config,
          checkpoint: stored.checkpoint,
          tail: stored.tail,
          requestTokens: estimate.tokens,
          overheadTokens: options.overheadTokens,
          nowSeconds: Date.now() / 1000,
          estimateEvent: estimateEventTokens,
        });
        await this.compact({
          ...common,
          stored: current ? stored : undefined,
          trigger: 'token_threshold',
          ...depth,
        });
      }
    }
  }
}

/** Names the view the after-invocation triggers read (`TailFacts`): the session's, or a scope's. */
function afterViewKey(options: AfterInvocationOptions): string {
  const { key, scope } = options;
  return JSON.stringify([
    key.appName,
    key.userId,
    key.sessionId,
    scope ? (scope.branch ?? '') : null,
  ]);
}
