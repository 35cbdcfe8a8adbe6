/**
 * Plugins observe and shape a run. Hooks run in the order the plugins were given; each may be
 * async. Short-circuits:
 * - `beforeRun` returning a `Content` answers the turn with it (stored as the root agent's event)
 *   and skips the agent.
 * - `beforeModel` returning a `ModelResponse` skips the model call (later plugins do not run).
 * - `afterModel` returning a `ModelResponse` replaces the response (each plugin sees the latest).
 * - `beforeTool` returning anything but `undefined` skips the tool and becomes its result.
 * - `afterTool` returning anything but `undefined` replaces the result (each plugin sees the
 *   latest), before the function response event is stored.
 * - `onEvent` returning a `NewEvent` replaces the event before it is stored.
 * - `beforeCompaction` returning `false` skips that compaction.
 */
import type { CompactionPlan } from '../../compaction/types.js';
import type { Content, NewEvent } from '../../events/types.js';
import type { ModelRequest, ModelResponse } from '../../models/types.js';
import type { CompactionReport } from '../compaction/compactor.js';

export interface PluginRunContext {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  /** The root agent's name. */
  agentName: string;
  signal?: AbortSignal;
}

export interface BeforeRunContext extends PluginRunContext {
  newMessage: Content;
}

export interface ModelCallContext extends PluginRunContext {
  request: ModelRequest;
  modelId: string;
}

export interface AfterModelContext extends ModelCallContext {
  response: ModelResponse;
}

export interface ToolCallContext extends PluginRunContext {
  toolName: string;
  functionCallId: string;
  args: Record<string, unknown>;
}

export interface AfterToolContext extends ToolCallContext {
  result: unknown;
  /** Set when the tool threw (or its arguments were invalid); `result` is then `{ error }`. */
  error?: unknown;
}

export interface EventContext extends PluginRunContext {
  event: NewEvent;
}

export interface CompactionContext {
  appName: string;
  userId?: string;
  sessionId?: string;
}

export interface BeforeCompactionContext extends CompactionContext {
  plan: CompactionPlan;
}

export interface AfterCompactionContext extends CompactionContext {
  report: CompactionReport;
}

type MaybeAsync<T> = T | Promise<T>;
/** A value, `undefined`, or nothing at all, so a hook written as `() => { ... }` type-checks. */
type HookResult<T> = MaybeAsync<T | undefined> | MaybeAsync<void>;

export interface Plugin {
  readonly name: string;
  beforeRun?(context: BeforeRunContext): HookResult<Content>;
  afterRun?(context: PluginRunContext): MaybeAsync<void>;
  beforeModel?(context: ModelCallContext): HookResult<ModelResponse>;
  afterModel?(context: AfterModelContext): HookResult<ModelResponse>;
  beforeTool?(context: ToolCallContext): MaybeAsync<unknown>;
  afterTool?(context: AfterToolContext): MaybeAsync<unknown>;
  onEvent?(context: EventContext): HookResult<NewEvent>;
  beforeCompaction?(context: BeforeCompactionContext): HookResult<boolean>;
  afterCompaction?(context: AfterCompactionContext): MaybeAsync<void>;
}
