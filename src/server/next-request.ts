/**
 * What the next model request of a session would hold, counted as `orrery view` counts it: the
 * active view (orphan calls restored from storage) plus the root agent's instruction and tool
 * declarations, when it is an `LlmAgent`.
 */
import { estimateContentListTokens } from '../compaction/token-estimate.js';
import { estimateNextRequest } from '../compaction/triggers.js';
import type { SessionKey } from '../events/types.js';
import type { Agent } from '../runtime/agents/agent.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { estimateRequestOverhead } from '../runtime/compaction/context-guard.js';
import { loadActiveView } from '../runtime/view/active-view.js';
import { OrphanCallRestorer } from '../runtime/view/restore-calls.js';
import type { SessionService } from '../sessions/session-service.js';

export async function describeNextRequest(options: {
  sessionService: SessionService;
  agent: Agent;
  key: SessionKey;
  signal?: AbortSignal;
}): Promise<Record<string, unknown>> {
  const { sessionService, key, signal } = options;
  const stored = await loadActiveView({ sessionService, ...key, signal });
  const view = await new OrphanCallRestorer({ sessionService }).assemble({ key, stored, signal });
  const agent = options.agent instanceof LlmAgent ? options.agent : undefined;
  const systemInstruction = agent?.instruction;
  const tools = agent?.tools.map((tool) => tool.declaration());
  const overheadTokens = estimateRequestOverhead({ systemInstruction, tools }).tokens;
  const trigger = estimateNextRequest({
    checkpoint: stored.checkpoint,
    tail: stored.tail,
    agentName: options.agent.name,
    overheadTokens,
  });
  return {
    systemInstruction,
    contents: view.contents,
    checkpointSeq: stored.checkpoint?.seq,
    tailEvents: stored.tail.length,
    estimatedTokens: overheadTokens + estimateContentListTokens(view.contents),
    trigger,
    warnings: view.warnings,
  };
}
