import type { Event, FunctionCall, NewEvent } from '../../events/types.js';
import type {
  FunctionDeclaration,
  Model,
  ModelResponse,
  ModelStreamPart,
} from '../../models/types.js';
import type { Tool, ToolState } from '../tools/tool.js';
import type { ModelRetryOptions } from '../turn/model-retry.js';

export interface GenerateOptions {
  agentName: string;
  model: Model;
  systemInstruction?: string;
  tools?: FunctionDeclaration[];
  temperature?: number;
  maxOutputTokens?: number;
  /** Backoff on retryable provider errors (resolved: every field set). */
  retry?: Required<ModelRetryOptions>;
}

export interface RunToolsOptions {
  agentName: string;
  /** The calls of one model response: they run in parallel. */
  calls: FunctionCall[];
  tools: readonly Tool[];
}

/**
 * What an agent gets from the Runner for one invocation. Every model call goes through
 * `generate` (which compacts before the call and retries once on overflow), every event through
 * `appendEvent` (plugins, then the store).
 */
export interface InvocationContext {
  readonly appName: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly invocationId: string;
  readonly branch?: string;
  readonly signal?: AbortSignal;
  /** Session state with this invocation's deltas applied. */
  readonly state: ToolState;
  /**
   * Tools the Runner gives every `LlmAgent` of the run (the `recall` tool when compaction is on);
   * an agent's own tool of the same name wins, and `LlmAgent({ recall: false })` takes none.
   */
  readonly builtinTools?: readonly Tool[];
  /** Persists the event (after `onEvent` plugins) and returns it with its `seq`. */
  appendEvent(event: NewEvent): Promise<Event>;
  /** One model call over the session's active view, kept under the configured ceilings. */
  generate(options: GenerateOptions): Promise<ModelResponse>;
  /** The caller asked for partial events (`RunOptions.streaming`). */
  readonly streaming?: boolean;
  /**
   * `generate`, streamed: yields the model's deltas as they arrive and returns the final
   * response, with the same compaction, plugins, retries and overflow handling. Yields nothing
   * (and calls `generate`) when the model cannot stream or a `beforeModel` plugin answers.
   */
  generateStream?(
    options: GenerateOptions,
  ): AsyncGenerator<ModelStreamPart, ModelResponse, undefined>;
  /**
   * Runs the calls in parallel through the tool plugins and returns the function response event
   * (not yet stored): one event, role `user`, author the agent, responses in call order.
   */
  runTools(options: RunToolsOptions): Promise<NewEvent>;
  /**
   * The same invocation on `branch` (a dotted path, `sweep.network`): its model calls see that
   * branch's view and its events are stored on it (docs/workflows.md#branch-views).
   * `ParallelAgent` needs it.
   */
  withBranch?(branch: string): InvocationContext;
}

/**
 * A piece of an answer in progress (ADK's `partial: true` event): the delta text of one model
 * call, yielded when the run streams. Never stored, so it has no `seq`; the complete answer
 * follows as a stored event.
 */
export interface PartialEvent extends NewEvent {
  partial: true;
}

/** What an agent (and `Runner.run`) yields: stored events, and partial ones when streaming. */
export type AgentEvent = Event | PartialEvent;

export function isPartialEvent(event: AgentEvent): event is PartialEvent {
  return event.partial === true && !('seq' in event);
}

export interface Agent {
  readonly name: string;
  /** A root without a model (a workflow) needs an explicit summarizer for compaction. */
  readonly model?: Model;
  readonly subAgents?: readonly Agent[];
  /**
   * The agent whose `subAgents` hold this one (set by the parent's constructor, as ADK's
   * `parent_agent`): `transfer_to_agent` may name it and its other sub-agents.
   */
  parentAgent?: Agent;
  /** Yields each event after it is stored, and partial events (not stored) when streaming. */
  runAsync(context: InvocationContext): AsyncGenerator<AgentEvent, void, undefined>;
  /** A copy running on `model` (the CLI's `--model`); agents without it keep their own. */
  withModel?(model: Model): Agent;
}
