/** One invocation's context: the bridge between agents and the Runner's store, plugins and guard. */
import type { ViewScope } from '../../compaction/types.js';
import type { ActiveView } from '../../compaction/view.js';
import { getFunctionCalls } from '../../events/event-helpers.js';
import type { Event, NewEvent, SessionKey } from '../../events/types.js';
import { isContextOverflowError } from '../../models/errors.js';
import type { ModelRequest, ModelResponse, ModelStreamPart } from '../../models/types.js';
import { withContextWindow } from '../../models/with-context-window.js';
import type { ModelMetrics } from '../../observability/model-metrics.js';
import type { Telemetry, TelemetrySpan } from '../../observability/telemetry.js';
import type { SessionLease, SessionService, StoredView } from '../../sessions/session-service.js';
import type { GenerateOptions, InvocationContext, RunToolsOptions } from '../agents/agent.js';
import type { AgentRequestLog } from '../compaction/agent-request-log.js';
import {
  type ContextGuard,
  estimateRequestOverhead,
  measureView,
  type RequestOverhead,
} from '../compaction/context-guard.js';
import { ContextOverflowError } from '../errors.js';
import type { PluginRunContext } from '../plugins/plugin.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import { toJsonRecord } from '../tools/to-json-value.js';
import type { Tool } from '../tools/tool.js';
import { loadActiveView } from '../view/active-view.js';
import { OrphanCallRestorer } from '../view/restore-calls.js';
import type { SpendPrices } from './live-spend.js';
import { measureModelCall } from './measured-model-call.js';
import { generateWithRetry } from './model-retry.js';
import { canStream, streamWithRetry } from './model-stream.js';
import { runTools } from './run-tools.js';
import type { InvocationState } from './state.js';

export interface InvocationOptions {
  key: SessionKey;
  invocationId: string;
  rootAgentName: string;
  branch?: string;
  /**
   * Set under a workflow with branches (`usesBranches`): every view is `scope.branch`'s
   * (docs/workflows.md#branch-views). Absent: the whole session, as without workflows.
   */
  scope?: ViewScope;
  signal?: AbortSignal;
  state: InvocationState;
  sessionService: SessionService;
  plugins: PluginManager;
  /** Absent when compaction is disabled. */
  guard?: ContextGuard;
  /**
   * Keep the stored view read for a model call current with this invocation's own appends, so
   * the next model call and the after-invocation checks need no read while nothing else wrote
   * (see `knownView`). Off when plugins run: their hooks may write or mutate between reads.
   */
  trackView?: boolean;
  /**
   * Tools every `LlmAgent` of the run gets once the view holds a summary
   * (`InvocationContext.builtinTools`): before that there is nothing to recall.
   */
  builtinTools?: readonly Tool[];
  /** The view read at the start of the run holds a summary. */
  hasSummary?: boolean;
  /** The caller asked for partial events (`RunOptions.streaming`). */
  streaming?: boolean;
  /** Every model's input window for this run (`RunnerOptions.contextWindowTokens`). */
  contextWindowTokens?: number;
  /** Spans for model and tool calls, children of `agentSpan`. */
  telemetry?: Telemetry;
  agentSpan?: TelemetrySpan;
  modelMetrics?: ModelMetrics;
  /** Catalog prices per model: each call's estimated USD (docs/cost.md#live-spend). */
  spendPrices?: SpendPrices;
  /** Each model call's request as sent is recorded here (summaries reuse its cached prefix). */
  agentRequests?: AgentRequestLog;
  /**
   * Set by the Runner when the root agent's final answer (no function call: the run returns
   * right after it) may be appended with the lease's release (`appendEventAndReleaseLease`):
   * one round trip for both. `compactionDue` (absent: compaction is off) says whether the
   * after-invocation compaction would act on the known view with the answer in it; then, or
   * without a known view, the answer is a plain append and the Runner releases as before.
   */
  releaseWithAnswer?: {
    lease: SessionLease;
    compactionDue?: (stored: StoredView, caller: ModelCaller) => boolean;
  };
}

/** The last agent that called a model: the post-invocation token estimate is anchored on it. */
export interface ModelCaller {
  agentName: string;
  branch?: string;
  overheadTokens: number;
}

/** The event with its state writes as JSON (`toJsonValue`): a `Date` in state is no failed turn. */
function withJsonStateDelta(event: NewEvent): NewEvent {
  const delta = event.actions?.stateDelta;
  if (!delta || Object.keys(delta).length === 0) return event;
  return { ...event, actions: { ...event.actions, stateDelta: toJsonRecord(delta) } };
}

export class Invocation implements InvocationContext {
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly invocationId: string;
  readonly branch?: string;
  readonly signal?: AbortSignal;
  readonly state: InvocationState;
  /** Whether a view this invocation read held a summary (then `builtinTools` are offered). */
  private summarized: boolean;
  readonly streaming: boolean;
  lastModelCaller?: ModelCaller;
  private readonly options: InvocationOptions;
  /** The stored view as of the last read, plus this invocation's appends since (see `knownView`). */
  private known?: StoredView;
  /** The tail array `extendKnownView` made (only this invocation holds it: extended in place). */
  private ownTail?: Event[];
  /**
   * The root agent's final answer was appended with `appendEventAndReleaseLease`: the
   * after-invocation compaction was checked on it (nothing due) and the lease is released
   * (or left to its holder, when the store could not release it).
   */
  releasedWithAnswer = false;

  constructor(options: InvocationOptions) {
    this.options = options;
    this.appName = options.key.appName;
    this.userId = options.key.userId;
    this.sessionId = options.key.sessionId;
    this.invocationId = options.invocationId;
    this.branch = options.branch;
    this.signal = options.signal;
    this.state = options.state;
    this.summarized = options.hasSummary ?? false;
    this.streaming = options.streaming ?? false;
  }

  get builtinTools(): readonly Tool[] | undefined {
    return this.summarized ? this.options.builtinTools : undefined;
  }

  get key(): SessionKey {
    return this.options.key;
  }

  pluginContext(agentName = this.options.rootAgentName): PluginRunContext {
    return {
      ...this.options.key,
      invocationId: this.invocationId,
      agentName,
      signal: this.signal,
    };
  }

  async appendEvent(event: NewEvent): Promise<Event> {
    this.signal?.throwIfAborted();
    // No plugins: no hook context built, no hook awaited (a quiet turn appends twice).
    const plugins = this.options.plugins;
    const final = withJsonStateDelta(
      plugins.plugins.length === 0
        ? event
        : await plugins.onEvent({
            ...this.pluginContext(
              event.author === 'user' ? this.options.rootAgentName : event.author,
            ),
            event,
          }),
    );
    const lease = this.releasingLease(final);
    const service = this.options.sessionService;
    const append = { ...this.options.key, event: final, signal: this.signal };
    if (lease && service.appendEventAndReleaseLease) {
      const stored = await service.appendEventAndReleaseLease({ ...append, lease });
      this.releasedWithAnswer = true;
      // The run returns right after this append: nothing reads the known view again.
      this.known = undefined;
      this.state.applyDelta(stored.actions.stateDelta);
      return stored;
    }
    const stored = await service.appendEvent(append);
    this.state.applyDelta(stored.actions.stateDelta);
    this.extendKnownView(stored);
    return stored;
  }

  /**
   * The lease to release with `event`, when it is the root agent's final answer (the model's,
   * without a function call; no state write) and the after-invocation compaction has nothing
   * to do with it in the view (checked on the known view plus `event`; another writer's append
   * that lands before it is not in that view: the next turn's checks see it).
   */
  private releasingLease(event: NewEvent): SessionLease | undefined {
    const release = this.options.releaseWithAnswer;
    if (!release || event.author !== this.options.rootAgentName || event.branch !== undefined) {
      return undefined;
    }
    // A model's answer: a call is followed by its response (authored by the agent too).
    const content = event.content;
    if (content && (content.role !== 'model' || getFunctionCalls(event).length > 0)) {
      return undefined;
    }
    if (content?.parts.some((part) => part.functionResponse)) return undefined;
    const delta = event.actions?.stateDelta;
    if (delta && Object.keys(delta).length > 0) return undefined;
    if (!release.compactionDue) return release.lease;
    const known = this.known;
    const caller = this.lastModelCaller;
    if (!known || !caller) return undefined;
    const seq = known.lastSeq + 1;
    const tail = [...known.tail, { ...event, seq } as Event];
    return release.compactionDue({ ...known, tail, lastSeq: seq }, caller)
      ? undefined
      : release.lease;
  }

  /**
   * Remembers `stored` as what `loadView` returns now (when tracking is on). Each later append
   * extends it only if its seq directly follows the view's `lastSeq`: seqs are assigned in order
   * without gaps, so any other write in between (another process, a compaction) breaks the chain
   * and the next model call reads the store again.
   */
  rememberView(stored: StoredView | undefined): void {
    // A scoped view is not what `loadView` returns, and other branches append concurrently.
    this.known = this.options.trackView && !this.options.scope ? stored : undefined;
  }

  /**
   * The same invocation on `branch` (a `ParallelAgent`'s sub-agent): its own views, its own
   * appends on the branch, the same session, state, plugins and signal.
   */
  withBranch(branch: string): Invocation {
    return new Invocation({
      ...this.options,
      branch,
      scope: { branch },
      trackView: false,
      releaseWithAnswer: undefined,
      hasSummary: this.summarized,
    });
  }

  /** The branch's view rule (`scope`), when the run has branches. */
  get scope(): ViewScope | undefined {
    return this.options.scope;
  }

  /** The stored view a `loadView` would return now, when nothing but this invocation wrote since the last read. */
  knownView(): StoredView | undefined {
    return this.known;
  }

  private extendKnownView(event: Event): void {
    const known = this.known;
    if (!known) return;
    if (event.seq !== known.lastSeq + 1 || event.actions.compaction) {
      this.known = undefined;
      return;
    }
    // A copy of the event: the stored one is also yielded to the caller, who may change it.
    // The tail array is copied once, the first time this invocation extends a view it was
    // handed (a store's or the guard's), then extended in place: no one else holds it, and no
    // copy of the whole tail per append.
    let tail = known.tail;
    if (tail !== this.ownTail) {
      tail = tail.slice();
      this.ownTail = tail;
    }
    tail.push(structuredClone(event));
    this.known = { ...known, tail, lastSeq: event.seq };
  }

  async generate(options: GenerateOptions): Promise<ModelResponse> {
    // Not streaming: the call yields no parts, only its response.
    const call = this.modelCall(options, false);
    let next = await call.next();
    while (!next.done) next = await call.next();
    return next.value;
  }

  generateStream(
    options: GenerateOptions,
  ): AsyncGenerator<ModelStreamPart, ModelResponse, undefined> {
    return this.modelCall(options, true);
  }

  /**
   * One model call (streamed when asked and the model can): compaction before it, and on an
   * overflow rejection before any part was handed on, compaction and one retry.
   */
  private async *modelCall(
    given: GenerateOptions,
    streaming: boolean,
  ): AsyncGenerator<ModelStreamPart, ModelResponse, undefined> {
    const window = this.options.contextWindowTokens;
    const options =
      window === undefined
        ? given
        : {
            ...given,
            model: withContextWindow({ model: given.model, contextWindowTokens: window }),
          };
    const progress = { started: false };
    const overhead = estimateRequestOverhead(options);
    this.lastModelCaller = {
      agentName: options.agentName,
      branch: this.branch,
      overheadTokens: overhead.tokens,
    };
    const firstRequest = await this.buildRequest(options, overhead);
    try {
      return yield* this.callModel(options, firstRequest, streaming, progress);
    } catch (error) {
      // Parts already shown cannot be taken back: the error ends the call.
      if (!isContextOverflowError(error) || progress.started) throw error;
      const guard = this.options.guard;
      if (!guard) {
        throw new ContextOverflowError({
          sessionId: this.sessionId,
          agentName: options.agentName,
          compacted: false,
          message: `Model '${options.model.modelId}' rejected the request for size and compaction is disabled: ${error.message}`,
          cause: error,
        });
      }
      // The compaction writes outside this invocation's appends: read the store again.
      this.known = undefined;
      const compacted = await guard.compactForOverflow({
        key: this.key,
        agentName: options.agentName,
        branch: this.branch,
        scope: this.options.scope,
        model: options.model,
        overhead,
        invocationId: this.invocationId,
        signal: this.signal,
      });
      // Nothing could be summarized: retry on a view truncated to half the rejected size.
      const rejected = measureView(
        { events: [], contents: firstRequest.contents, warnings: [] },
        overhead,
      );
      const retryRequest = await this.buildRequest(
        options,
        overhead,
        compacted
          ? undefined
          : { tokens: Math.floor(rejected.tokens / 2), bytes: Math.floor(rejected.bytes / 2) },
      );
      try {
        return yield* this.callModel(options, retryRequest, streaming, progress, true);
      } catch (retryError) {
        if (!isContextOverflowError(retryError) || progress.started) throw retryError;
        throw new ContextOverflowError({
          sessionId: this.sessionId,
          agentName: options.agentName,
          compacted,
          message: `Model '${options.model.modelId}' rejected the request for size again after ${compacted ? 'compacting with a smaller tail' : 'truncating the view'}: ${retryError.message}`,
          cause: retryError,
        });
      }
    }
  }

  private async buildRequest(
    options: GenerateOptions,
    overhead: RequestOverhead,
    shrinkTo?: { tokens?: number; bytes?: number },
  ): Promise<ModelRequest> {
    const guard = this.options.guard;
    let view: ActiveView;
    if (guard) {
      const prepared = await guard.prepare({
        key: this.key,
        agentName: options.agentName,
        branch: this.branch,
        scope: this.options.scope,
        model: options.model,
        overhead,
        invocationId: this.invocationId,
        shrinkTo,
        stored: this.known,
        signal: this.signal,
      });
      view = prepared.view;
      this.rememberView(prepared.stored);
      // A summary or an elision rule leaves something to recall.
      if (view.checkpoint || view.elision) this.summarized = true;
    } else {
      const stored =
        this.known ??
        (await loadActiveView({
          sessionService: this.options.sessionService,
          ...this.key,
          scope: this.options.scope,
          signal: this.signal,
        }));
      view = await new OrphanCallRestorer({ sessionService: this.options.sessionService }).assemble(
        { key: this.key, stored, signal: this.signal },
      );
      this.rememberView(stored);
    }
    const request: ModelRequest = {
      contents: view.contents,
      cacheKey: this.sessionId,
      signal: this.signal,
    };
    if (options.systemInstruction) request.systemInstruction = options.systemInstruction;
    if (options.tools && options.tools.length > 0) request.tools = options.tools;
    if (options.temperature !== undefined) request.temperature = options.temperature;
    if (options.maxOutputTokens !== undefined) request.maxOutputTokens = options.maxOutputTokens;
    return request;
  }

  private async *callModel(
    options: GenerateOptions,
    request: ModelRequest,
    streaming: boolean,
    progress: { started: boolean },
    overflowRetry = false,
  ): AsyncGenerator<ModelStreamPart, ModelResponse, undefined> {
    this.signal?.throwIfAborted();
    const plugged = this.options.plugins.plugins.length > 0;
    const context = plugged
      ? { ...this.pluginContext(options.agentName), request, modelId: options.model.modelId }
      : undefined;
    const shortCircuit = context && (await this.options.plugins.beforeModel(context));
    const { retry } = options;
    let response: ModelResponse;
    if (shortCircuit) response = shortCircuit;
    else {
      const prices = await this.options.spendPrices?.pricesFor(options.model.modelId);
      const call = measureModelCall({
        model: options.model,
        agentName: options.agentName,
        sessionId: this.sessionId,
        overflowRetry,
        telemetry: this.options.telemetry,
        parentSpan: this.options.agentSpan,
        modelMetrics: this.options.modelMetrics,
        ...(prices && { prices }),
      });
      const model = call.model;
      try {
        if (streaming && canStream(model)) {
          const onPart = () => {
            progress.started = true;
          };
          response = yield* streamWithRetry({ model, request, retry, onPart });
        } else response = await generateWithRetry({ model, request, retry });
        call.finish(response);
        // As sent, after the plugins: a summary on this model may re-send it as its prefix.
        this.options.agentRequests?.record({
          key: this.key,
          branch: this.branch,
          agentName: options.agentName,
          model: options.model,
          request,
        });
      } catch (error) {
        call.finish(undefined, error);
        throw error;
      }
    }
    // Plugins see (and may replace) the whole response; the parts went out as they came.
    return context ? this.options.plugins.afterModel({ ...context, response }) : response;
  }

  async runTools(options: RunToolsOptions): Promise<NewEvent> {
    return runTools({
      ...options,
      invocation: this,
      plugins: this.options.plugins,
      telemetry: this.options.telemetry,
      agentSpan: this.options.agentSpan,
      scope: this.options.scope,
    });
  }
}
