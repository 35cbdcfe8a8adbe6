/**
 * The next request of a session as the inspector shows it: the events it holds (summary first)
 * and its estimated tokens, counted exactly as `GET .../view` counts `estimatedTokens`
 * (`describeNextRequest`): the active view with orphan calls restored from storage, plus the
 * served agent's instruction and tool declarations.
 */
import { estimateContentTokens } from '../../compaction/token-estimate.js';
import type { Event, SessionKey } from '../../events/types.js';
import { loadActiveView } from '../../runtime/active-view.js';
import type { Agent } from '../../runtime/agents/agent.js';
import { LlmAgent } from '../../runtime/agents/llm-agent.js';
import { estimateRequestOverhead } from '../../runtime/context-guard.js';
import { OrphanCallRestorer } from '../../runtime/restore-calls.js';
import type { SessionService } from '../../sessions/session-service.js';

/** The served agent's instruction and tool declarations, in tokens (0 for a non-LLM agent). */
export function agentOverheadTokens(agent: Agent): number {
  const llmAgent = agent instanceof LlmAgent ? agent : undefined;
  return estimateRequestOverhead({
    systemInstruction: llmAgent?.instruction,
    tools: llmAgent?.tools.map((tool) => tool.declaration()),
  }).tokens;
}

export interface NextRequestView {
  /** The checkpoint first, then every tail event the request holds, in `seq` order. */
  events: Event[];
  tokens: number;
}

export async function loadNextRequestView(options: {
  sessionService: SessionService;
  agent: Agent;
  key: SessionKey;
  signal?: AbortSignal;
}): Promise<NextRequestView> {
  const { sessionService, key, signal } = options;
  const stored = await loadActiveView({ sessionService, ...key, signal });
  const view = await new OrphanCallRestorer({ sessionService }).assemble({ key, stored, signal });
  let tokens = agentOverheadTokens(options.agent);
  for (const content of view.contents) tokens += estimateContentTokens(content);
  // Partial (streamed) events are never sent.
  const tail = view.events.filter((event) => !event.partial);
  return { events: view.checkpoint ? [view.checkpoint, ...tail] : tail, tokens };
}
