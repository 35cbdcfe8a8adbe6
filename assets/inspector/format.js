// @ts-check
/** How numbers and times read on the page. */

const numberFormat = new Intl.NumberFormat('en-US');

/** @param {number | null | undefined} value */
export function formatNumber(value) {
  return typeof value === 'number' && Number.isFinite(value) ? numberFormat.format(value) : '–';
}

/** 12345 -> "12k", 1234 -> "1.2k": for axis labels. @param {number} value */
export function formatCompact(value) {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 10_000) return `${Math.round(value / 1000)}k`;
  if (value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(Math.round(value));
}

/** Event timestamps are seconds since the epoch (ADK's shape). @param {number} seconds */
export function isoTime(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '';
  return new Date(seconds * 1000).toISOString();
}

/** "2026-12-01 10:33:12" (UTC), the precision a timeline needs. @param {number} seconds */
export function formatTime(seconds) {
  const iso = isoTime(seconds);
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : '–';
}

/** "1 event", "2 events". @param {number} count @param {string} word */
export function plural(count, word) {
  return `${formatNumber(count)} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * A session's counts as its header reads them: "40 events · 2 compactions · 3 branch summaries".
 * `compactions` are the spans the timeline route answers (a branch summary has a `branch`); the
 * compactions figure counts the trunk's only, as the sessions list's `compactionCount` does.
 * @param {{ eventCount: number, compactions: Array<{ branch?: string }> }} counts
 */
export function sessionCountsText({ eventCount, compactions }) {
  const branchSummaries = compactions.filter((span) => span.branch !== undefined).length;
  const trunk = compactions.length - branchSummaries;
  const summaries =
    branchSummaries === 0
      ? ''
      : ` · ${formatNumber(branchSummaries)} branch ${branchSummaries === 1 ? 'summary' : 'summaries'}`;
  return `${plural(eventCount, 'event')} · ${plural(trunk, 'compaction')}${summaries}`;
}
