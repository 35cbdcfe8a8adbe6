/**
 * The Compactor's side of a summary on the agent's cached prefix
 * (docs/cost.md#summaries-that-reuse-the-agents-cache): the view the plan was made from, checked
 * against the agent's last request, and the call (`summarizeWithAgentPrefix`). Anything that
 * rules the prefix out is a reason recorded on the compaction, and the standalone summarizer
 * writes the summary as before.
 */
import type { CompactionPlan, EventsSummarizer, Summary } from '../../compaction/types.js';
import { assembleView } from '../../compaction/view.js';
import type { SummaryRequestNote } from '../../events/types.js';
import type { StoredView } from '../../sessions/session-service.js';
import { messageSeqsOf, summarizeWithAgentPrefix } from '../../summarizers/agent-prefix-summary.js';
import type { RecordedAgentRequest } from './agent-request-log.js';
import type { Summarized } from './summarize-plan.js';
import type { SummarizerCoolDown } from './summarizer-cool-down.js';

/** What the Runner hands a compaction: the agent's last request, or why there is none. */
export type AgentPrefixSource = { recorded: RecordedAgentRequest } | { missing: string };

/** The summary written on the agent's prefix, or the note saying why it was not. */
export async function summarizeOnAgentPrefix(options: {
  source: AgentPrefixSource;
  plan: CompactionPlan;
  stored: StoredView;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<{ summary: Summary } | { note: SummaryRequestNote }> {
  const { source, plan, stored } = options;
  const standalone = (reason: string) => ({ note: { via: 'standalone' as const, reason } });
  if ('missing' in source) return standalone(source.missing);
  if (plan.trigger === 'overflow') {
    return standalone("overflow: the provider rejected the agent's request for size");
  }
  if (stored.expandedFromCheckpointSeq !== undefined) {
    return standalone('expanded_view: the view holds imported summaries');
  }
  const view = assembleView({ checkpoint: stored.checkpoint, tail: stored.tail });
  const compaction = stored.checkpoint?.actions.compaction;
  const result = await summarizeWithAgentPrefix({
    model: source.recorded.model,
    request: source.recorded.request,
    viewContents: view.contents,
    messageSeqs: messageSeqsOf({
      summaryRange: compaction && { fromSeq: compaction.startSeq, toSeq: compaction.endSeq },
      events: view.events,
    }),
    fromSeq: plan.startSeq,
    toSeq: plan.endSeq,
    rolling: stored.checkpoint !== undefined,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if ('reason' in result) return standalone(`${result.reason}: ${result.detail}`);
  return { summary: result.summary };
}

/**
 * The summary on the agent's cached prefix as the Compactor records it, or the note saying why
 * the summarizer writes it instead. Not tried while the summarizer (the same model) cools down
 * after a failure.
 */
export async function agentPrefixSummary(options: {
  source: AgentPrefixSource;
  stored: StoredView;
  plan: CompactionPlan;
  summarizer: EventsSummarizer;
  coolDown: SummarizerCoolDown;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}): Promise<{ summarized: Summarized } | { note: SummaryRequestNote }> {
  const coolDown = options.coolDown.describe(options.summarizer);
  if (coolDown && coolDown.untilMs > Date.now()) {
    return { note: { via: 'standalone', reason: 'cooling_down: the summarizer failed recently' } };
  }
  const result = await summarizeOnAgentPrefix(options);
  if ('note' in result) return result;
  return {
    summarized: {
      summary: result.summary,
      name: result.summary.summarizer ?? options.summarizer.name,
      usedFallback: false,
      summaryRequest: { via: 'agent_prefix' },
    },
  };
}
