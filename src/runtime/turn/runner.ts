/**
 * The Runner: appends the user's message, runs the agent, yields each event once stored, and
 * keeps the session's context bounded — before every model call (token trigger, ceilings), on a
 * provider's overflow rejection (compact with a smaller tail, retry once) and after each
 * invocation (sliding window, then token trigger). Its parts: options (`runner-options.ts`), the
 * compaction setup (`compaction-setup.ts`), compaction and its hooks (`runner-compaction.ts`),
 * background compactions (`background-compactions.ts`), spans (`runner-telemetry.ts`) and the
 * session lease (`session-lease.ts`); docs/architecture.md#the-runtime.
 */

import type { Logger } from 'pino';
import { TailFacts } from '../../compaction/tail-facts.js';
import type { EventsCompactionConfig } from '../../compaction/types.js';
import { createEvent, newId } from '../../events/event-helpers.js';
import type { Event, Session, SessionKey } from '../../events/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import { type CompactionMetrics, createCompactionMetrics } from '../../observability/metrics.js';
import { createModelMetrics, type ModelMetrics } from '../../observability/model-metrics.js';
import type { TelemetrySpan } from '../../observability/telemetry.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import type { SessionLease, SessionService } from '../../sessions/session-service.js';
import type { Agent, AgentEvent } from '../agents/agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { usesBranches } from '../agents/sub-agents.js';
import { AgentRequestLog } from '../compaction/agent-request-log.js';
import {
  agentPrefixModelId,
  createRunnerSummarizer,
  fallbackSummarizerFor,
  resolveCompactionConfig,
} from '../compaction/compaction-setup.js';
import { PluginManager } from '../plugins/plugin-manager.js';
import { createRecallTool } from '../tools/recall-tool.js';
import type { Tool } from '../tools/tool.js';
import { StoredViewReader } from '../view/stored-view-of.js';
import { ViewWarningLog } from '../view/view-warning-log.js';
import { BackgroundCompactions } from './background-compactions.js';
import { Invocation, type InvocationOptions } from './invocation.js';
import { SpendPrices } from './live-spend.js';
import { RunnerCompaction } from './runner-compaction.js';
import {
  type RunnerOptions,
  type RunOptions,
  resolveRunnerSettings,
  toUserContent,
} from './runner-options.js';
import { RunnerTelemetry } from './runner-telemetry.js';
import {
  acquireRunLeaseAndSession,
  eitherSignal,
  type SessionLeaseOptions,
} from './session-lease.js';
import { InvocationState } from './state.js';

export type { RunnerOptions, RunOptions } from './runner-options.js';

export class Runner {
  readonly appName: string;
  readonly agent: Agent;
  readonly sessionService: SessionService;
  /** `null` when compaction is off. */
  readonly compactionConfig: EventsCompactionConfig | null;
  readonly metrics: CompactionMetrics;
  /** Per model call, in the same registry as `metrics`. */
  readonly modelMetrics: ModelMetrics;
  readonly logger: Logger;
  readonly background: boolean;
  private readonly sessionLease: SessionLeaseOptions | false;
  private readonly plugins: PluginManager;
  private readonly contextWindowTokens?: number;
  private readonly telemetry = new RunnerTelemetry();
  private readonly backgroundCompactions: BackgroundCompactions;
  /** `undefined` when compaction is off. */
  private readonly compaction?: RunnerCompaction;
  /** The `recall` tool, when compaction is on and it was not turned off. */
  private readonly recallTool?: Tool;
  /** The agent tree has a `ParallelAgent`: views are scoped by branch. */
  private readonly branched: boolean;
  /** Each session's elision rule, extended turn by turn instead of scanned for. */
  private readonly tailFacts = new TailFacts();
  /** `storedViewOf` of each session's read, by the events appended since the last one. */
  private readonly storedViews = new StoredViewReader();
  /** Set with `estimateSpend`: catalog prices of each model called (docs/cost.md#live-spend). */
  private readonly spendPrices?: SpendPrices;
  /** The agents' last requests, when summaries reuse their cached prefix. */
  private agentRequests?: AgentRequestLog;

  constructor(options: RunnerOptions) {
    const settings = resolveRunnerSettings(options);
    this.appName = settings.appName;
    this.contextWindowTokens = settings.contextWindowTokens;
    this.background = settings.background;
    this.sessionLease = settings.sessionLease;
    this.agent = options.agent;
    this.branched = usesBranches(options.agent);
    this.sessionService = options.sessionService;
    this.plugins = new PluginManager({ plugins: options.plugins });
    this.metrics = createCompactionMetrics({ registry: options.metrics?.registry });
    this.modelMetrics = createModelMetrics({ registry: this.metrics.registry });
    this.logger = createRuntimeLogger({ logger: options.logger });
    this.backgroundCompactions = new BackgroundCompactions({ logger: this.logger });
    const config = resolveCompactionConfig({ compaction: options.compaction, env: settings.env });
    this.compactionConfig = config;
    if (options.estimateSpend ?? config?.costAware !== undefined) {
      this.spendPrices = new SpendPrices();
    }
    if (config) {
      this.compaction = this.createCompaction(options, config, settings.env);
      if (options.recall !== false) {
        this.recallTool = createRecallTool({
          sessionService: options.sessionService,
          recall: options.recall,
        });
      }
    }
  }

  private createCompaction(
    options: RunnerOptions,
    config: EventsCompactionConfig,
    env: Record<string, string | undefined>,
  ): RunnerCompaction {
    const summarizer = createRunnerSummarizer({ ...options, config, env, logger: this.logger });
    const modelId = agentPrefixModelId({ ...options, config, env });
    if (modelId !== undefined) this.agentRequests = new AgentRequestLog();
    const viewWarnings = new ViewWarningLog({ logger: this.logger, appName: this.appName });
    return new RunnerCompaction({
      appName: this.appName,
      sessionService: options.sessionService,
      config,
      summarizer,
      fallbackSummarizer: fallbackSummarizerFor({
        summarizer,
        fallbackSummarizer: options.fallbackSummarizer,
      }),
      plugins: this.plugins,
      metrics: this.metrics,
      logger: this.logger,
      telemetry: this.telemetry,
      onViewWarnings: (key, warnings) => viewWarnings.log(key, warnings),
      ...(this.agentRequests && modelId !== undefined
        ? { agentPrefix: { requests: this.agentRequests, modelId } }
        : {}),
    });
  }

  /** Waits for every background compaction (e.g. before shutting down). */
  async flush(): Promise<void> {
    await this.backgroundCompactions.flush();
  }

  /** Stored events in order; with `streaming: true`, partial events (not stored) as well. */
  run(options: RunOptions & { streaming: true }): AsyncGenerator<AgentEvent, void, undefined>;
  run(options: RunOptions & { streaming?: false }): AsyncGenerator<Event, void, undefined>;
  run(options: RunOptions): AsyncGenerator<AgentEvent, void, undefined>;
  async *run(options: RunOptions): AsyncGenerator<AgentEvent, void, undefined> {
    const key: SessionKey = {
      appName: this.appName,
      userId: options.userId,
      sessionId: options.sessionId,
    };
    const invocationId = newId();
    // With no plugin to hook it, the user's message may be appended with the lease taken (the
    // store's `acquireLeaseAndAppend`: one round trip on PostgreSQL). Its timestamp is then the
    // run's start, before any wait for another holder.
    const userEvent =
      this.plugins.plugins.length === 0 &&
      this.sessionLease !== false &&
      this.sessionService.acquireLeaseAndAppend
        ? createEvent({ author: 'user', invocationId, content: toUserContent(options.newMessage) })
        : undefined;
    // Taken before the view is read, held until the invocation and its compaction are done.
    // The session is read with the lease when the store can do both at once (one round trip).
    const { lease, read } = await acquireRunLeaseAndSession({
      sessionService: this.sessionService,
      key,
      lease: this.sessionLease,
      signal: options.signal,
      append: userEvent,
    });
    // Without a lease, a background compaction of the previous turn lands before this turn
    // reads the view; the caller may give up waiting (the compaction goes on without this turn).
    if (!lease) await this.backgroundCompactions.waitFor({ key, signal: options.signal });
    const linked = lease ? eitherSignal(options.signal, lease.signal) : undefined;
    let handedToBackground = false;
    const telemetry = await this.telemetry.ready();
    const agentSpan = this.telemetry.startAgentSpan({
      key,
      agentName: this.agent.name,
      modelId: this.agent.model?.modelId,
      telemetry,
    });
    try {
      handedToBackground = yield* this.runInvocation({
        ...options,
        key,
        invocationId,
        read,
        signal: linked?.signal ?? options.signal,
        lease,
        agentSpan,
      });
    } catch (error) {
      agentSpan.fail(error);
      // Whatever the lost lease's abort surfaced as (a tool's or the model's abort error).
      if (lease?.signal.aborted && !options.signal?.aborted) throw lease.signal.reason;
      throw error;
    } finally {
      agentSpan.end();
      if (!handedToBackground) this.telemetry.forgetAgentSpan(key, agentSpan);
      linked?.dispose();
      if (!handedToBackground) await lease?.release();
    }
  }

  /**
   * One invocation under the session's lease (when there is one). Returns whether a background
   * compaction took the lease over (it releases it when done).
   */
  private async *runInvocation(
    options: RunOptions & {
      key: SessionKey;
      invocationId: string;
      lease?: SessionLease;
      agentSpan: TelemetrySpan;
      /**
       * The session as read with the lease (`acquireRunLeaseAndSession`), if it was, and the
       * user's message when it was appended with it (then in `session`).
       */
      read?: { session: Session | undefined; appended?: Event };
    },
  ): AsyncGenerator<AgentEvent, boolean, undefined> {
    const { signal, key } = options;
    signal?.throwIfAborted();
    const session = options.read
      ? options.read.session
      : await this.sessionService.getSession({ ...key, signal });
    if (!session) throw new SessionNotFoundError(key);
    const viewKey = sessionViewKey(key);

    const invocation = new Invocation({
      key,
      invocationId: options.invocationId,
      rootAgentName: this.agent.name,
      // A workflow with branches: every view is a branch's (docs/workflows.md#branch-views).
      scope: this.branched ? {} : undefined,
      signal,
      state: new InvocationState(session.state),
      sessionService: this.sessionService,
      plugins: this.plugins,
      guard: this.compaction?.guard,
      builtinTools: this.recallTool ? [this.recallTool] : undefined,
      hasSummary:
        session.events[0]?.actions?.compaction !== undefined ||
        this.tailFacts.latestElision({ viewKey, events: session.events }) !== undefined,
      trackView: this.plugins.plugins.length === 0,
      streaming: options.streaming === true,
      contextWindowTokens: this.contextWindowTokens,
      telemetry: this.telemetry.telemetry,
      agentSpan: options.agentSpan,
      modelMetrics: this.modelMetrics,
      spendPrices: this.spendPrices,
      agentRequests: this.agentRequests,
      releaseWithAnswer: this.releaseWithAnswer(key, options.lease),
    });
    // The session was read with its view: with the user's message appended below, it is what
    // the first model call would read, unless something else writes in between.
    invocation.rememberView(this.storedViews.read({ viewKey, events: session.events }));
    const newMessage = toUserContent(options.newMessage);
    const appended = options.read?.appended;
    yield appended ??
      (await invocation.appendEvent(
        createEvent({ author: 'user', invocationId: invocation.invocationId, content: newMessage }),
      ));

    const plugged = this.plugins.plugins.length > 0;
    const runContext = plugged ? invocation.pluginContext() : undefined;
    const answer = runContext && (await this.plugins.beforeRun({ ...runContext, newMessage }));
    if (answer) {
      yield await invocation.appendEvent(
        createEvent({
          author: this.agent.name,
          invocationId: invocation.invocationId,
          content: { role: 'model', parts: answer.parts },
        }),
      );
    } else {
      for await (const event of this.agent.runAsync(invocation)) yield event;
    }
    if (runContext) await this.plugins.afterRun(runContext);
    return this.compactAfterInvocation({ ...options, invocation });
  }

  /**
   * When the root agent's final answer may release the lease in its own append: the store can,
   * no plugin hooks the turn's end, and the root is a plain `LlmAgent` (its answer without a
   * function call ends the run; a subclass or a workflow may go on) without branches.
   */
  private releaseWithAnswer(
    key: SessionKey,
    lease: SessionLease | undefined,
  ): InvocationOptions['releaseWithAnswer'] {
    if (!lease || !this.sessionService.appendEventAndReleaseLease) return undefined;
    if (this.plugins.plugins.length > 0 || this.branched) return undefined;
    if (Object.getPrototypeOf(this.agent) !== LlmAgent.prototype) return undefined;
    const compaction = this.compaction;
    if (!compaction) return { lease };
    return {
      lease,
      compactionDue: (stored, caller) => compaction.dueAfterInvocation({ key, ...caller, stored }),
    };
  }

  /**
   * The after-invocation compaction, now or (`background`) after the run returns. Returns
   * whether a background compaction took the lease over.
   */
  private async compactAfterInvocation(options: {
    key: SessionKey;
    invocation: Invocation;
    lease?: SessionLease;
    agentSpan: TelemetrySpan;
    signal?: AbortSignal;
  }): Promise<boolean> {
    const { key, invocation, lease } = options;
    const compaction = this.compaction;
    // Released with the answer: the triggers were checked on it, nothing was due.
    if (!compaction || invocation.releasedWithAnswer) return false;
    const caller = invocation.lastModelCaller ?? { agentName: this.agent.name, overheadTokens: 0 };
    const stored = invocation.knownView();
    const scope = invocation.scope;
    const turnId = invocation.invocationId;
    if (!this.background) {
      await compaction.afterInvocation({
        key,
        ...caller,
        scope,
        stored,
        turnId,
        signal: options.signal,
      });
      return false;
    }
    // Not tied to the caller's signal: the caller has moved on by the time it runs. It holds
    // the session's lease (the next run waits for it) and stops if the lease is lost.
    this.backgroundCompactions.start({
      key,
      work: () =>
        compaction.afterInvocation({
          key,
          ...caller,
          scope,
          stored,
          turnId,
          signal: lease?.signal,
        }),
      done: () => {
        this.telemetry.forgetAgentSpan(key, options.agentSpan);
        return lease?.release();
      },
    });
    return true;
  }
}

/** Names one session's whole view (`TailFacts`). */
function sessionViewKey(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}
