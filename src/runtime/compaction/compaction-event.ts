/**
 * The compaction event a summary becomes, and the note naming calls that never returned (split
 * from `compactor.ts`, which appends the event).
 */
import type { CompactionPlan, DeadCall, Summary } from '../../compaction/types.js';
import { newId } from '../../events/event-helpers.js';
import type { Content, NewEvent, SummaryRequestNote } from '../../events/types.js';
import type { Summarized } from './summarize-plan.js';

/**
 * The note a summary gets when it covers calls that never returned
 * (docs/architecture.md#the-safe-split-and-the-ledger).
 */
export function deadCallsNote(deadCalls: DeadCall[]): string {
  const list = deadCalls.map((call) => `${call.name} (${call.callId})`).join(', ');
  return `Calls that never returned: ${list}`;
}

export function withDeadCallsNote(content: Content, deadCalls: DeadCall[]): Content {
  if (deadCalls.length === 0) return content;
  return { ...content, parts: [...content.parts, { text: `\n\n${deadCallsNote(deadCalls)}` }] };
}

/** The compaction event a summary becomes. */
export function compactionEvent(options: {
  plan: CompactionPlan;
  summarized: Summarized;
  summary: Summary;
  compactedContent: Content;
  tokensAfter: number;
  /** How the summary was asked for, when prefix reuse was on. */
  summaryRequest?: SummaryRequestNote;
}): NewEvent {
  const { plan, summarized, compactedContent, tokensAfter } = options;
  const usageMetadata = options.summary.usageMetadata;
  return {
    id: newId(),
    invocationId: newId(),
    author: 'user',
    timestamp: Date.now() / 1000,
    ...(usageMetadata ? { usageMetadata } : {}),
    actions: {
      compaction: {
        startSeq: plan.startSeq,
        endSeq: plan.endSeq,
        startTimestamp: plan.startTimestamp,
        endTimestamp: plan.endTimestamp,
        compactedContent,
        trigger: plan.trigger,
        tokensBefore: plan.tokensBefore,
        tokensAfter,
        summarizer: summarized.name,
        ...(summarized.fallback ? { fallback: summarized.fallback } : {}),
        ...(options.summaryRequest ? { summaryRequest: options.summaryRequest } : {}),
      },
    },
  };
}
