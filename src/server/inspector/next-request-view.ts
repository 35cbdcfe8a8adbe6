/**
 * The next request of a session as the inspector shows it: the events it holds (summary first)
 * and its estimated tokens, counted exactly as `GET .../view` counts `estimatedTokens`
 * (`describeNextRequest`): the active view with orphan calls restored from storage, plus the
 * served agent's instruction and tool declarations.
 */

import { estimateContentTokens } from '../../compaction/token-estimate.js';
import type { ViewScope } from '../../compaction/types.js';
import type { Event, Part, SessionKey } from '../../events/types.js';
import type { Agent } from '../../runtime/agents/agent.js';
import { estimateRequestOverhead } from '../../runtime/compaction/context-guard.js';
import { loadActiveView } from '../../runtime/view/active-view.js';
import { OrphanCallRestorer } from '../../runtime/view/restore-calls.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';
import { agentOnBranch, requestOverheadOf } from '../next-request.js';

/** The served agent's instruction and tool declarations, in tokens (0 for a non-LLM agent). */
export function agentOverheadTokens(agent: Agent): number {
  return estimateRequestOverhead(requestOverheadOf(agent)).tokens;
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
  /** A workflow branch's view (docs/workflows.md#branch-views); absent: the whole session's. */
  scope?: ViewScope;
  signal?: AbortSignal;
}): Promise<NextRequestView> {
  const { sessionService, key, scope, signal } = options;
  const stored = await loadActiveView({ sessionService, ...key, scope, signal });
  return assembleNextRequestView({ ...options, stored });
}

/** `CONTENT_OVERHEAD` of `estimateContentTokens`: a content without parts. */
const CONTENT_TOKENS = estimateContentTokens({ role: 'user', parts: [] });

/**
 * The next-request view of a loaded stored view (`loadActiveView`'s). `restorer` and
 * `estimatePart` may be kept across calls on one session (`NextRequestViews`): the view holds the
 * stored events' own part objects, so a remembered part estimate is never redone.
 */
export async function assembleNextRequestView(options: {
  sessionService: SessionService;
  agent: Agent;
  key: SessionKey;
  stored: StoredView;
  restorer?: OrphanCallRestorer;
  estimatePart?: (part: Part) => number;
  signal?: AbortSignal;
}): Promise<NextRequestView> {
  const { sessionService, key, stored, signal } = options;
  const restorer = options.restorer ?? new OrphanCallRestorer({ sessionService });
  const view = await restorer.assemble({ key, stored, signal });
  let tokens = agentOverheadTokens(options.agent);
  if (options.estimatePart) {
    // estimateContentTokens, part by part.
    for (const content of view.contents) {
      tokens += CONTENT_TOKENS;
      for (const part of content.parts) tokens += options.estimatePart(part);
    }
  } else {
    for (const content of view.contents) tokens += estimateContentTokens(content);
  }
  // Partial (streamed) events are never sent.
  const tail = view.events.filter((event) => !event.partial);
  return { events: view.checkpoint ? [view.checkpoint, ...tail] : tail, tokens };
}

/**
 * `GET .../view?branch=`: the next request of a workflow branch (`''`: the trunk's), counted with
 * the instruction and tools of the agent that runs on it (docs/workflows.md#branch-views).
 */
export function readBranchView(options: {
  sessionService: SessionService;
  agent: Agent;
  key: SessionKey;
  branch: string;
  signal?: AbortSignal;
}): Promise<NextRequestView> {
  const branch = options.branch === '' ? undefined : options.branch;
  return loadNextRequestView({
    ...options,
    agent: agentOnBranch(options.agent, branch),
    scope: branch === undefined ? {} : { branch },
  });
}
