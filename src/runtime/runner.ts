/**
 * The Runner: appends the user's message, runs the agent, yields each event once stored, and
 * keeps the session's context bounded — before every model call (token trigger, ceilings), on a
 * provider's overflow rejection (compact with a smaller tail, retry once) and after each
 * invocation (sliding window, then token trigger).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  createEventsCompactionConfig,
  validateEventsCompactionConfig,
} from '../compaction/config.js';
import { needsExpandedView } from '../compaction/expanded-view.js';
import { countCompletedInvocations, estimateNextRequest } from '../compaction/triggers.js';
import type { EventsCompactionConfig, EventsSummarizer } from '../compaction/types.js';
import { isValidCompaction, type ViewWarning } from '../compaction/view.js';
import { errorMessage } from '../events/errors.js';
import { createEvent, newId } from '../events/event-helpers.js';
import type { Content, Event, SessionKey } from '../events/types.js';
import type { ResolveModelOptions } from '../models/resolve-model.js';
import type { Model } from '../models/types.js';
import { checkContextWindowTokens } from '../models/with-context-window.js';
import { createRuntimeLogger, logCompaction } from '../observability/compaction-log.js';
import { type CompactionMetrics, createCompactionMetrics } from '../observability/metrics.js';
import { createModelMetrics, type ModelMetrics } from '../observability/model-metrics.js';
import { Telemetry, type TelemetrySpan } from '../observability/telemetry.js';
import { SessionNotFoundError } from '../sessions/errors.js';
import type { SessionLease, SessionService, StoredView } from '../sessions/session-service.js';
import { DigestSummarizer } from '../summarizers/digest-summarizer.js';
import { fallbackReason } from '../summarizers/fallback-reason.js';
import { loadActiveView } from './active-view.js';
import type { Agent, AgentEvent } from './agents/agent.js';
import { type CompactionReport, Compactor } from './compactor.js';
import { ContextGuard, type GuardCompactOptions } from './context-guard.js';
import { createDefaultSummarizer } from './default-summarizer.js';
import { RunnerConfigError } from './errors.js';
import { Invocation } from './invocation.js';
import type { Plugin } from './plugins/plugin.js';
import { PluginManager } from './plugins/plugin-manager.js';
import {
  acquireRunLease,
  checkSessionLeaseOption,
  eitherSignal,
  type SessionLeaseOptions,
} from './session-lease.js';
import { InvocationState } from './state.js';
import { createRecallTool, type RecallToolOptions } from './tools/recall-tool.js';
import type { Tool } from './tools/tool.js';

/** View warnings remembered as logged (the set starts over past this). */
const LOGGED_WARNINGS_LIMIT = 10_000;

export interface RunnerOptions {
  appName: string;
  agent: Agent;
  sessionService: SessionService;
  /**
   * `undefined`: `createEventsCompactionConfig()` from the environment (`ORRERY_*`).
   * `null`: compaction off. A config: checked by `validateEventsCompactionConfig` (the same
   * rules and `InvalidConfigError`s as `createEventsCompactionConfig`), then used as given.
   */
  compaction?: EventsCompactionConfig | null;
  /**
   * Overrides `compaction.summarizer`. Default: `LlmEventSummarizer` over `summarizerModel`, else
   * over the model `resolveSummarizerModel()` names (`ORRERY_COMPACTION_MODEL`, the Google
   * default for agents on Google, else the agent's own model). A root without a model (a
   * workflow) must be given one, or `ORRERY_COMPACTION_MODEL`.
   */
  summarizer?: EventsSummarizer;
  /** The default summarizer's model (e.g. a cheap one from `resolveModel`). */
  summarizerModel?: Model;
  /**
   * Builds the summarizer model named by `resolveSummarizerModel()` when it is not the agent's
   * own, once, at the first compaction. Default: `resolveModel` (keys from `env`), whose settings
   * are checked here: a model `ORRERY_COMPACTION_MODEL` names that cannot be built (e.g. no key
   * for its provider) is a `RunnerConfigError`; for the implicit Google default, and when a given
   * `resolveModel` fails, the agent's own model summarizes, a warning is logged and each
   * compaction records the `fallback`.
   */
  resolveModel?: (options: ResolveModelOptions) => Promise<Model>;
  /**
   * Where `ORRERY_*` settings and provider keys are read: the compaction config (when
   * `compaction` is omitted) and the summarizer model. Default: `process.env`, read once here.
   */
  env?: Record<string, string | undefined>;
  /** Tried when the summarizer fails. Default: a `DigestSummarizer`; `null`: none. */
  fallbackSummarizer?: EventsSummarizer | null;
  plugins?: Plugin[];
  /** Metrics register here (a new `Registry` per Runner when omitted, never the global one). */
  metrics?: { registry?: Registry };
  /**
   * The input window (tokens) of every model this Runner calls, over the model's own
   * `contextWindowTokens` (the built-in table): for a model it does not know or knows wrongly.
   */
  contextWindowTokens?: number;
  /** A pino logger, `false` for none, or a new `warn` logger on stderr when omitted. */
  logger?: Logger | false;
  /**
   * Run the after-invocation compaction in the background: `run()` finishes as soon as the
   * agent's events are yielded. The next `run()` on the same session waits for it first, so a
   * turn never reads a view a compaction is about to replace; `flush()` waits for all of them.
   */
  background?: boolean;
  /**
   * One invocation at a time per session, across runners and processes, through the store's
   * `acquireLease`: a run waits up to `waitMs` (default 30_000) for the session, then throws
   * `SessionBusyError`; the lease is held for the whole invocation and its after-invocation
   * compaction (a background one too) and lives `ttlMs` (default 30_000) past a runner that
   * died. A run whose lease is lost stops with `SessionLeaseLostError`. `false`: no lease (only
   * this Runner's own background compactions are waited for, as with a store without leases).
   */
  sessionLease?: SessionLeaseOptions | false;
  /**
   * With compaction on, every `LlmAgent` gets a `recall` tool that reads back what summaries
   * replaced (`src/runtime/tools/recall-tool.ts`): name, description and caps here; `false`: no
   * such tool. An agent opts out with `LlmAgent({ recall: false })`.
   */
  recall?: RecallToolOptions | false;
}

export interface RunOptions {
  userId: string;
  sessionId: string;
  newMessage: Content | string;
  signal?: AbortSignal;
  /**
   * Yield partial events (`partial: true`, the delta text of each model call, never stored)
   * as the model streams, before each stored answer. Only for models with `stream`; others
   * answer whole. Default false.
   */
  streaming?: boolean;
}

function toContent(message: Content | string): Content {
  if (typeof message === 'string') return { role: 'user', parts: [{ text: message }] };
  return { role: 'user', parts: message.parts };
}

/**
 * A `getSession` view's events (checkpoint first, then the tail) as `loadView` returns them, or
 * `undefined` when they are not in that shape. `lastSeq` is the largest seq seen, a lower bound
 * that only lets the next append extend the view if no other write came between.
 */
function storedViewOf(events: Event[]): StoredView | undefined {
  const first = events[0];
  const checkpoint = first && isValidCompaction(first) ? first : undefined;
  const tail = checkpoint ? events.slice(1) : events;
  const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
  let lastSeq = checkpoint?.seq ?? 0;
  let previous = endSeq;
  for (const event of tail) {
    if (event.actions?.compaction || event.seq <= previous) return undefined;
    previous = event.seq;
    lastSeq = Math.max(lastSeq, event.seq);
  }
  const view = { checkpoint, tail, lastSeq };
  // Not what the model sees (imported ADK summaries, a rewind): the first call reads it expanded.
  return needsExpandedView(view) ? undefined : view;
}

function sessionKeyString(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

/** Waits for `promise` (which never rejects) or until `signal` aborts, whichever comes first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

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
  private readonly compactor?: Compactor;
  private readonly guard?: ContextGuard;
  /** The `recall` tool, when compaction is on and it was not turned off. */
  private readonly recallTool?: Tool;
  /** The session a compaction hook runs for (hooks only receive the plan or the report). */
  private readonly compactionScope = new AsyncLocalStorage<SessionKey>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly loggedWarnings = new Set<string>();
  private readonly contextWindowTokens?: number;
  /** `@opentelemetry/api`, loaded on the first run (a no-op without it). */
  private telemetryLoad?: Promise<Telemetry>;
  private telemetry?: Telemetry;
  /** The `invoke_agent` span of each session's running invocation: its compactions' parent. */
  private readonly agentSpans = new Map<string, TelemetrySpan>();

  constructor(options: RunnerOptions) {
    if (!options.appName) {
      throw new RunnerConfigError({
        field: 'appName',
        value: options.appName,
        message: 'is required',
      });
    }
    this.appName = options.appName;
    if (options.contextWindowTokens !== undefined) {
      try {
        checkContextWindowTokens(options.contextWindowTokens);
      } catch {
        throw new RunnerConfigError({
          field: 'contextWindowTokens',
          value: options.contextWindowTokens,
          message: 'must be a positive integer (the input window in tokens)',
        });
      }
      this.contextWindowTokens = options.contextWindowTokens;
    }
    this.agent = options.agent;
    this.sessionService = options.sessionService;
    this.background = options.background ?? false;
    this.sessionLease = checkSessionLeaseOption(options.sessionLease);
    this.plugins = new PluginManager({ plugins: options.plugins });
    this.metrics = createCompactionMetrics({ registry: options.metrics?.registry });
    this.modelMetrics = createModelMetrics({ registry: this.metrics.registry });
    this.logger = createRuntimeLogger({ logger: options.logger });
    const env = options.env ?? { ...process.env };
    const config =
      options.compaction === undefined
        ? createEventsCompactionConfig({ env })
        : options.compaction === null
          ? null
          : validateEventsCompactionConfig(options.compaction);
    this.compactionConfig = config;
    if (!config) return;

    const summarizer =
      options.summarizer ??
      config.summarizer ??
      createDefaultSummarizer({
        summarizerModel: options.summarizerModel,
        agentModel: options.agent.model,
        env,
        resolveModel: options.resolveModel,
        logger: this.logger,
      });
    if (!summarizer) {
      throw new RunnerConfigError({
        field: 'summarizer',
        value: undefined,
        message: `the root agent '${options.agent.name}' has no model (a workflow) and compaction is on, so there is no model to summarize with: pass a summarizer (Runner option 'summarizer' or compaction config 'summarizer', e.g. new DigestSummarizer()), a 'summarizerModel', or ORRERY_COMPACTION_MODEL; or turn compaction off with compaction: null`,
      });
    }
    const fallback =
      options.fallbackSummarizer === null
        ? undefined
        : (options.fallbackSummarizer ??
          (summarizer instanceof DigestSummarizer ? undefined : new DigestSummarizer()));
    this.compactor = new Compactor({
      sessionService: options.sessionService,
      config: { ...config, summarizer },
      fallbackSummarizer: fallback,
      hooks: {
        summarizerFailed: ({ summarizer: name, error }) => {
          this.metrics.recordSummarizerFailure(name);
          this.logger.warn(
            { msgType: 'summarizer_failure', summarizer: name, error: fallbackReason(error) },
            `summarizer '${name}' failed`,
          );
        },
        beforeCompaction: (plan) =>
          this.plugins.beforeCompaction({
            appName: this.appName,
            ...this.compactionScope.getStore(),
            plan,
          }),
        afterCompaction: (report) => this.afterCompaction(report),
      },
    });
    this.guard = new ContextGuard({
      sessionService: options.sessionService,
      config,
      compact: (compactOptions) => this.compact(compactOptions),
      onViewWarnings: ({ key, warnings }) => this.logViewWarnings(key, warnings),
    });
    if (options.recall !== false) {
      this.recallTool = createRecallTool({
        sessionService: options.sessionService,
        recall: options.recall,
      });
    }
  }

  /** Each view warning once (the same orphan shows in every request until it is compacted). */
  private logViewWarnings(key: SessionKey, warnings: ViewWarning[]): void {
    for (const warning of warnings) {
      const id = JSON.stringify([key.sessionId, warning.kind, warning.seq, warning.callId]);
      if (this.loggedWarnings.has(id)) continue;
      if (this.loggedWarnings.size >= LOGGED_WARNINGS_LIMIT) this.loggedWarnings.clear();
      this.loggedWarnings.add(id);
      this.logger.warn(
        {
          msgType: 'view_warning',
          appName: this.appName,
          userId: key.userId,
          sessionId: key.sessionId,
          kind: warning.kind,
          seq: warning.seq,
          callId: warning.callId,
        },
        warning.message,
      );
    }
  }

  private async afterCompaction(report: CompactionReport): Promise<void> {
    const key = this.compactionScope.getStore();
    this.metrics.recordCompaction(report);
    this.traceCompaction(report, key);
    logCompaction({ logger: this.logger, report, appName: this.appName, userId: key?.userId });
    try {
      await this.plugins.afterCompaction({ appName: this.appName, ...key, report });
    } catch (error) {
      this.logger.warn({ error: String(error) }, 'afterCompaction plugin failed');
    }
  }

  /** A span per compaction attempt, under the `invoke_agent` span of the session's run. */
  private traceCompaction(report: CompactionReport, key: SessionKey | undefined): void {
    if (!this.telemetry) return;
    const span = this.telemetry.startSpan({
      name: `orrery.compaction ${report.trigger}`,
      parent: key && this.agentSpans.get(sessionKeyString(key)),
      startTime: Date.now() - report.durationMs,
      attributes: {
        'gen_ai.conversation.id': report.sessionId,
        'orrery.compaction.trigger': report.trigger,
        'orrery.compaction.outcome': report.outcome,
        'orrery.compaction.tokens_before': report.tokensBefore,
        'orrery.compaction.tokens_after': report.tokensAfter,
        'orrery.compaction.start_seq': report.startSeq,
        'orrery.compaction.end_seq': report.endSeq,
        'orrery.compaction.summarizer': report.summarizer,
        'orrery.compaction.ineffective': report.ineffective,
        'orrery.compaction.fallback_from': report.fallback?.from,
      },
    });
    if (report.outcome === 'failed') span.fail(report.error ?? new Error(report.reason));
    span.end();
  }

  /** One compaction attempt; failures are logged and counted, never thrown (except aborts). */
  private async compact(options: GuardCompactOptions): Promise<CompactionReport> {
    const compactor = this.compactor;
    const { key, ...rest } = options;
    // A beforeCompaction plugin sees the plan's events: let it have its own copies, as before.
    if (this.plugins.plugins.length > 0) rest.stored = undefined;
    const started = performance.now();
    try {
      if (!compactor) throw new Error('compaction is disabled');
      return await this.compactionScope.run(key, () => compactor.compact({ ...key, ...rest }));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const report: CompactionReport = {
        sessionId: key.sessionId,
        trigger: options.trigger,
        outcome: 'failed',
        reason: errorMessage(error),
        tokensBefore: 0,
        durationMs: performance.now() - started,
        error,
      };
      await this.compactionScope.run(key, () => this.afterCompaction(report));
      return report;
    }
  }

  /** Waits for every background compaction (e.g. before shutting down). */
  async flush(): Promise<void> {
    await Promise.all([...this.pending.values()]);
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
    // Taken before the view is read, held until the invocation and its compaction are done.
    const lease = await acquireRunLease({
      sessionService: this.sessionService,
      key,
      lease: this.sessionLease,
      signal: options.signal,
    });
    if (!lease) {
      // A background compaction of the previous turn lands before this turn reads the view; the
      // caller may give up waiting (the compaction goes on without this turn).
      const pending = this.pending.get(sessionKeyString(key));
      if (pending) await untilAborted(pending, options.signal);
    }
    const linked = lease ? eitherSignal(options.signal, lease.signal) : undefined;
    let handedToBackground = false;
    if (!this.telemetry) {
      this.telemetryLoad ??= Telemetry.load();
      this.telemetry = await this.telemetryLoad;
    }
    const agentSpan = this.telemetry.startSpan({
      name: `invoke_agent ${this.agent.name}`,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': this.agent.name,
        'gen_ai.conversation.id': key.sessionId,
      },
    });
    const keyString = sessionKeyString(key);
    this.agentSpans.set(keyString, agentSpan);
    try {
      handedToBackground = yield* this.runInvocation({
        ...options,
        key,
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
      if (!handedToBackground && this.agentSpans.get(keyString) === agentSpan) {
        this.agentSpans.delete(keyString);
      }
      linked?.dispose();
      if (!handedToBackground) await lease?.release();
    }
  }

  /**
   * One invocation under the session's lease (when there is one). Returns whether a background
   * compaction took the lease over (it releases it when done).
   */
  private async *runInvocation(
    options: RunOptions & { key: SessionKey; lease?: SessionLease; agentSpan?: TelemetrySpan },
  ): AsyncGenerator<AgentEvent, boolean, undefined> {
    const { signal, key, lease } = options;
    signal?.throwIfAborted();
    const session = await this.sessionService.getSession({ ...key, signal });
    if (!session) throw new SessionNotFoundError(key);

    const invocation = new Invocation({
      key,
      invocationId: newId(),
      rootAgentName: this.agent.name,
      signal,
      state: new InvocationState(session.state),
      sessionService: this.sessionService,
      plugins: this.plugins,
      guard: this.guard,
      builtinTools: this.recallTool ? [this.recallTool] : undefined,
      hasSummary: session.events[0]?.actions?.compaction !== undefined,
      trackView: this.plugins.plugins.length === 0,
      streaming: options.streaming === true,
      contextWindowTokens: this.contextWindowTokens,
      telemetry: this.telemetry,
      agentSpan: options.agentSpan,
      modelMetrics: this.modelMetrics,
    });
    // The session was read with its view: with the user's message appended below, it is what
    // the first model call would read, unless something else writes in between.
    invocation.rememberView(storedViewOf(session.events));
    const newMessage = toContent(options.newMessage);
    yield await invocation.appendEvent(
      createEvent({ author: 'user', invocationId: invocation.invocationId, content: newMessage }),
    );

    const runContext = invocation.pluginContext();
    const answer = await this.plugins.beforeRun({ ...runContext, newMessage });
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
    await this.plugins.afterRun(runContext);

    const caller = invocation.lastModelCaller ?? {
      agentName: this.agent.name,
      overheadTokens: 0,
    };
    if (!this.compactor) return false;
    const stored = invocation.knownView();
    if (!this.background) {
      await this.compactAfterInvocation({ key, ...caller, stored, signal });
      return false;
    }
    const keyString = sessionKeyString(key);
    // Not tied to the caller's signal: the caller has moved on by the time it runs. It holds
    // the session's lease (the next run waits for it) and stops if the lease is lost.
    const task = this.compactAfterInvocation({ key, ...caller, stored, signal: lease?.signal })
      .catch((error) => this.logger.warn({ error: String(error) }, 'background compaction failed'))
      .finally(() => {
        if (this.pending.get(keyString) === task) this.pending.delete(keyString);
        if (this.agentSpans.get(keyString) === options.agentSpan) this.agentSpans.delete(keyString);
        return lease?.release();
      });
    this.pending.set(keyString, task);
    return true;
  }

  /** Sliding window first (if configured and due), then the token trigger. */
  private async compactAfterInvocation(options: {
    key: SessionKey;
    agentName: string;
    branch?: string;
    overheadTokens: number;
    /** The stored view as `loadView` would return it now, when the invocation knows it. */
    stored?: StoredView;
    signal?: AbortSignal;
  }): Promise<void> {
    const config = this.compactionConfig;
    if (!config) return;
    const { key, signal } = options;
    const common = {
      key,
      agentName: options.agentName,
      branch: options.branch,
      overheadTokens: options.overheadTokens,
      signal,
    };
    // One view read serves both checks unless the window compacted in between.
    const load = () => loadActiveView({ sessionService: this.sessionService, ...key, signal });
    let stored = options.stored ?? (await load());
    // Whether `stored` is still what the store holds, so the compactor need not read it again.
    let current = true;
    if (
      config.compactionInterval &&
      countCompletedInvocations({ tail: stored.tail }) >= config.compactionInterval
    ) {
      const report = await this.compact({ ...common, stored, trigger: 'sliding_window' });
      if (report.outcome === 'compacted') {
        stored = await load();
      } else if (report.outcome !== 'skipped') {
        // The attempt may have written (a lost race): the compactor reads the store itself.
        current = false;
      }
    }
    if (config.tokenThreshold) {
      const estimate = estimateNextRequest({
        checkpoint: stored.checkpoint,
        tail: stored.tail,
        agentName: options.agentName,
        branch: options.branch,
        overheadTokens: options.overheadTokens,
      });
      if (estimate.tokens >= config.tokenThreshold) {
        await this.compact({
          ...common,
          stored: current ? stored : undefined,
          trigger: 'token_threshold',
        });
      }
    }
  }
}
