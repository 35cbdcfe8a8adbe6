/**
 * The one-line note `orrery chat` and `orrery run` print on stderr after each compaction
 * attempt that changed the view or failed (docs/architecture.md#elision-the-cheap-tier for the
 * elided line). Skips and conflicts print nothing.
 */
import type { CompactionReport } from '../runtime/compaction/compactor.js';
import { groupDigits } from '../util/group-digits.js';
import { plural } from '../util/plural.js';
import { creditOfReport, describeCredit } from './summarizer-label.js';

function tokens(count: number | undefined): string {
  return groupDigits(count ?? 0);
}

/** The note for `report` (ending in a newline), or `undefined` when nothing is printed. */
export function compactionNote(options: {
  report: CompactionReport;
  /** Whom a summary is credited to unless a fallback wrote it. */
  summarizerLabel: string;
}): string | undefined {
  const { report } = options;
  if (report.outcome === 'compacted') {
    // A fallback is named as one: the summary is not the summarizer model's.
    const credit = creditOfReport(report, options.summarizerLabel);
    const by = credit?.fallback ? `, by ${describeCredit(credit)}` : '';
    return `· compacted (${report.trigger}): seq ${report.startSeq}-${report.endSeq}, tokens ${tokens(report.tokensBefore)} -> ${tokens(report.tokensAfter)}${by}\n`;
  }
  if (report.outcome === 'elided') {
    const outputs = plural(report.elidedOutputs ?? 0, 'tool output');
    return `· elided (${report.trigger}): ${outputs} through seq ${report.elidedThroughSeq}, tokens ${tokens(report.tokensBefore)} -> ${tokens(report.tokensAfter)}\n`;
  }
  if (report.outcome === 'failed') {
    return `· compaction failed (${report.trigger}): ${report.reason ?? 'unknown error'}; the old view is kept\n`;
  }
  return undefined;
}

/** A compaction that leaves the next request at this share of the threshold or more helps little. */
const LITTLE_RECLAIMED_SHARE = 0.8;

/**
 * Said once per session of `chat`/`run`: the compaction left the next request so near the
 * threshold (or over it) that the next turns will compact again, each paying a summary for
 * little room. Names the settings to change. `undefined` when the compaction did its job.
 */
export function littleReclaimedNote(options: {
  report: CompactionReport;
  tokenThreshold: number | undefined;
}): string | undefined {
  const { report, tokenThreshold } = options;
  if (report.outcome !== 'compacted' && report.outcome !== 'elided') return undefined;
  if (tokenThreshold === undefined || tokenThreshold <= 0 || report.tokensAfter === undefined) {
    return undefined;
  }
  if (!report.ineffective && report.tokensAfter < tokenThreshold * LITTLE_RECLAIMED_SHARE) {
    return undefined;
  }
  const share = Math.round((report.tokensAfter / tokenThreshold) * 100);
  return `· note: that compaction left the next request at ${tokens(report.tokensAfter)} tokens, ${share}% of the ${tokens(tokenThreshold)}-token threshold, so the next turns will compact again for little gain: raise ORRERY_COMPACTION_TOKEN_THRESHOLD or lower ORRERY_COMPACTION_RETENTION_EVENTS / ORRERY_COMPACTION_RETENTION_TOKENS (said once)\n`;
}
