import type { ViewScope } from '../../compaction/types.js';
import type { FunctionDeclaration } from '../../models/types.js';

/** Session state as a tool sees it: reads include this invocation's writes. */
export interface ToolState {
  get<T = unknown>(key: string): T | undefined;
  has(key: string): boolean;
  /** Recorded in the function response event's `actions.stateDelta`. */
  set(key: string, value: unknown): void;
  /** A copy of the current state (stored state + pending writes). */
  toObject(): Record<string, unknown>;
}

export interface ToolContext {
  appName: string;
  userId: string;
  sessionId: string;
  invocationId: string;
  agentName: string;
  /** The id of the function call being answered. */
  functionCallId: string;
  state: ToolState;
  /** The branch the calling agent runs on (docs/workflows.md); absent: the trunk. */
  branch?: string;
  /**
   * Set under a workflow with branches: the view the caller sees (`scopeView`). The `recall`
   * tool reads only what this scope may see, the caller's own branch first.
   */
  viewScope?: ViewScope;
  signal?: AbortSignal;
}

export interface ToolRunOptions {
  args: Record<string, unknown>;
  context: ToolContext;
}

/** Anything the tool loop can call. `FunctionTool` is the usual implementation. */
export interface Tool {
  readonly name: string;
  readonly description: string;
  /**
   * A long-running tool answers with an intermediate result; its call id is listed in the model
   * event's `longRunningToolIds` so compaction keeps the obligation open.
   */
  readonly isLongRunning?: boolean;
  declaration(): FunctionDeclaration;
  /** The result (any JSON value). Throwing turns into an `{ error }` response for the model. */
  run(options: ToolRunOptions): Promise<unknown>;
}
