// @ts-check
/** The words a timeline row shows for an event and for a compaction span. */
import { formatNumber } from './format.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineEvent} TimelineEvent
 * @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan
 */

/** Longer than this, an event's preview is collapsed (the whole event is one click away). */
const LARGE_CHARS = 600;

/** @type {Record<TimelineEvent['kind'], string>} */
const KIND_LABELS = {
  user: 'user',
  model: 'model',
  'tool-call': 'tool call',
  'tool-result': 'tool result',
  compaction: 'compaction',
  other: 'other',
};

/** @param {TimelineEvent['kind']} kind */
export function kindLabel(kind) {
  return KIND_LABELS[kind] ?? kind;
}

/**
 * Who wrote the row: a compaction is stored with author `user` (ADK's rule for events the
 * runtime adds), but its summary was written by the summarizer, so the row names that.
 * @param {Pick<TimelineEvent, 'kind' | 'author' | 'branch'>} event
 * @param {Pick<CompactionSpan, 'summarizer'> | undefined} span
 */
export function authorLabel(event, span) {
  const author = event.kind === 'compaction' ? (span?.summarizer ?? 'orrery') : event.author;
  // A workflow branch's event (docs/workflows.md) names its branch.
  return event.branch ? `${author} @ ${event.branch}` : author;
}

/**
 * @param {Pick<CompactionSpan, 'startSeq' | 'endSeq' | 'tokensBefore' | 'tokensAfter' | 'trigger'
 *   | 'summarizer' | 'fallback' | 'branch'>} span
 */
export function compactionText(span) {
  const range = `#${span.startSeq}–#${span.endSeq}`;
  const tokens = `next request ${formatNumber(span.tokensBefore)} → ${formatNumber(span.tokensAfter)} tokens (trigger)`;
  const fallback = span.fallback ? ` (fallback from ${span.fallback.from})` : '';
  const branch = span.branch ? ` · branch ${span.branch}` : '';
  return `summarizes ${range} · ${span.trigger} · ${tokens} · ${span.summarizer}${fallback}${branch}`;
}

/**
 * A row's preview: a compaction names what it summarizes (in the view, its summary); tool calls,
 * tool results and large events are collapsed to their head and size.
 * @param {{ event: TimelineEvent, span: CompactionSpan | undefined,
 *   mode: 'history' | 'view' }} options
 */
export function previewText({ event, span, mode }) {
  if (event.kind === 'compaction') {
    if (!span) return event.preview;
    return mode === 'view'
      ? `Summary of #${span.startSeq}–#${span.endSeq}: ${span.summary}`
      : `Compaction ${compactionText(span)}`;
  }
  const collapsed =
    event.kind === 'tool-call' || event.kind === 'tool-result' || event.chars > LARGE_CHARS;
  if (!collapsed) return event.preview;
  const size = `${formatNumber(event.chars)} chars`;
  const head = event.preview.length > 80 ? `${event.preview.slice(0, 80)}…` : event.preview;
  return `▸ ${head} (${size})`;
}
