/**
 * The one-line note `orrery chat` and `orrery run` print on stderr after each compaction
 * attempt that changed the view or failed (docs/architecture.md#elision-the-cheap-tier for the
 * elided line). Skips and conflicts print nothing.
 */
import type { CompactionReport } from '../runtime/compactor.js';
import { groupDigits } from './group-digits.js';
import { plural } from './plural.js';
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
