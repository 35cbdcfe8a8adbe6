/**
 * What the next model request of a session would hold, counted as `orrery view` counts it: the
 * active view (orphan calls restored from storage) plus the agent's instruction and tool
 * declarations, when it is an `LlmAgent`. With `branch` (a workflow's branch, `sweep.network`):
 * the view that branch's next request would see (docs/workflows.md#branch-views), counted with
 * the instruction and tools of the agent that runs on it.
 */

import { estimateContentListTokens } from '../compaction/token-estimate.js';
import { estimateNextRequest } from '../compaction/triggers.js';
import type { ViewScope } from '../compaction/types.js';
import type { SessionKey } from '../events/types.js';
import type { FunctionDeclaration } from '../models/types.js';
import type { Agent } from '../runtime/agents/agent.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { findAgent } from '../runtime/agents/sub-agents.js';
import { estimateRequestOverhead } from '../runtime/compaction/context-guard.js';
import { loadActiveView } from '../runtime/view/active-view.js';
import { OrphanCallRestorer } from '../runtime/view/restore-calls.js';
import type { SessionService } from '../sessions/session-service.js';

/**
 * The agent whose requests a branch's view is assembled for: the sub-agent named by the
 * branch's last segment (ADK names a parallel sub-agent's branch `<parent>.<name>`), else the
 * root.
 */
export function agentOnBranch(root: Agent, branch: string | undefined): Agent {
  const name = branch?.split('.').at(-1);
  return (name !== undefined && findAgent(root, name)) || root;
}

/**
 * An LLM agent's instruction and tool declarations. Read by shape, not `instanceof LlmAgent`: an
 * `--agent` module loaded through tsx holds its own copy of the classes.
 */
export function requestOverheadOf(agent: Agent): {
  systemInstruction?: string;
  tools?: FunctionDeclaration[];
} {
  if (agent instanceof LlmAgent) {
    return {
      systemInstruction: agent.instruction,
      tools: agent.tools.map((tool) => tool.declaration()),
    };
  }
  const shape = agent as { instruction?: unknown; tools?: unknown };
  const tools = Array.isArray(shape.tools)
    ? (shape.tools as Array<{ declaration?: () => FunctionDeclaration }>).flatMap((tool) =>
        typeof tool.declaration === 'function' ? [tool.declaration()] : [],
      )
    : undefined;
  return {
    ...(typeof shape.instruction === 'string' && { systemInstruction: shape.instruction }),
    ...(tools && { tools }),
  };
}

export async function describeNextRequest(options: {
  sessionService: SessionService;
  /**
   * The agent the request is counted for (its instruction and tool declarations, the agent on
   * the branch). Absent (`orrery view`, which has no agent): only `systemInstruction` is counted
   * and reported usage of any author on the branch anchors the trigger.
   */
  agent?: Agent;
  /** Counted when `agent` is absent: e.g. an imported session's stored instruction. */
  systemInstruction?: string;
  key: SessionKey;
  /** A branch's view (`''`: the trunk's, scoped); absent: the whole session's, unscoped. */
  branch?: string;
  signal?: AbortSignal;
}): Promise<Record<string, unknown>> {
  const { sessionService, key, signal } = options;
  const scope: ViewScope | undefined =
    options.branch === undefined
      ? undefined
      : options.branch === ''
        ? {}
        : { branch: options.branch };
  const stored = await loadActiveView({ sessionService, ...key, scope, signal });
  const view = await new OrphanCallRestorer({ sessionService }).assemble({ key, stored, signal });
  const onBranch = options.agent && agentOnBranch(options.agent, scope?.branch);
  const { systemInstruction, tools } = onBranch
    ? requestOverheadOf(onBranch)
    : { systemInstruction: options.systemInstruction, tools: undefined };
  const overheadTokens = estimateRequestOverhead({ systemInstruction, tools }).tokens;
  const trigger = estimateNextRequest({
    checkpoint: stored.checkpoint,
    tail: stored.tail,
    ...(onBranch && { agentName: onBranch.name }),
    ...(scope?.branch !== undefined && { branch: scope.branch }),
    overheadTokens,
  });
  return {
    ...(scope && { branch: scope.branch ?? '', ...(onBranch && { agent: onBranch.name }) }),
    systemInstruction,
    contents: view.contents,
    checkpointSeq: stored.checkpoint?.seq,
    tailEvents: stored.tail.length,
    estimatedTokens: overheadTokens + estimateContentListTokens(view.contents),
    trigger,
    warnings: view.warnings,
  };
}
