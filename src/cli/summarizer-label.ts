/** Which summarizer wrote a compaction, said truthfully: a fallback is named as one. */
import type { EventCompaction } from '../events/types.js';
import type { CompactionReport } from '../runtime/compaction/compactor.js';

export interface SummarizerCredit {
  /** The summarizer that wrote the summary. */
  summarizer: string;
  /** Set when a fallback wrote it: the summarizer that failed first, and why (when recorded). */
  fallback?: { from: string; reason?: string };
}

/** From a stored compaction: its `summarizer` and `fallback` fields. */
export function creditOfCompaction(compaction: EventCompaction): SummarizerCredit {
  return compaction.fallback
    ? { summarizer: compaction.summarizer, fallback: { ...compaction.fallback } }
    : { summarizer: compaction.summarizer };
}

/**
 * From a compaction attempt's report: the stored event's fields when it wrote one, else the
 * report's own. `primary` names the summarizer tried first, for a fallback the event does not
 * describe.
 */
export function creditOfReport(
  report: CompactionReport,
  primary: string,
): SummarizerCredit | undefined {
  const compaction = report.event?.actions.compaction;
  if (compaction?.fallback) return creditOfCompaction(compaction);
  const summarizer = compaction?.summarizer ?? report.summarizer;
  if (summarizer === undefined) return undefined;
  if (!report.usedFallback) return { summarizer };
  return { summarizer, fallback: { from: primary } };
}

/** "digest", or "digest (fallback: google:gemini-2.5-flash failed: fetch failed)". */
export function describeCredit(credit: SummarizerCredit): string {
  if (!credit.fallback) return credit.summarizer;
  const reason = credit.fallback.reason ? `: ${oneLine(credit.fallback.reason)}` : '';
  return `${credit.summarizer} (fallback: ${credit.fallback.from} failed${reason})`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 200 ? flat : `${flat.slice(0, 199)}…`;
}
