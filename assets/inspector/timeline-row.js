// @ts-check
/**
 * One row of the virtualized timeline (timeline.js): an event's line (seq, time, author, kind,
 * preview, tokens, a Show button) and, expanded, the full event; or a placeholder for an event
 * not fetched yet. Every row has one height, an expanded one a fixed height more.
 */
import { h } from './dom.js';
import { authorLabel, kindLabel, previewText } from './event-text.js';
import { formatNumber, formatTime, isoTime } from './format.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineEvent} TimelineEvent
 * @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan
 * @typedef {import('../../src/server/inspector/api-types.js').StoredEventResponse} StoredEventResponse
 * @typedef {import('./timeline.js').TimelineMode} TimelineMode
 * The whole event behind an expanded row: asked for, or arrived.
 * @typedef {{ status: 'loading' } | { status: 'loaded', full: StoredEventResponse }} FullEvent
 */

export const ROW_HEIGHT = 34;
export const EXPANDED_HEIGHT = 320;

/**
 * @param {CompactionSpan | undefined} span
 * @param {FullEvent | undefined} full
 */
function renderDetail(span, full) {
  return h(
    'div',
    { className: 'row-detail', style: `height:${EXPANDED_HEIGHT - 8}px` },
    span ? h('p', { className: 'detail-summary' }, span.summary) : null,
    full?.status === 'loaded'
      ? h('pre', { className: 'event-json' }, JSON.stringify(full.full, null, 2))
      : h('p', { className: 'muted' }, 'Loading the full event…'),
  );
}

/**
 * Row `index` at pixel `top`: `event`'s, or a placeholder when there is none (`pageLoaded`: its
 * page arrived without it). `span`: a compaction row's span; `full`: the expanded row's event.
 * @param {{ index: number, event: TimelineEvent | undefined, top: number, rowCount: number,
 *   mode: TimelineMode, pageLoaded: boolean, expanded: boolean, highlighted: boolean,
 *   span: CompactionSpan | undefined, full: FullEvent | undefined, onToggle: () => void }} options
 */
export function renderTimelineRow(options) {
  const { index, event, top, rowCount, mode, expanded, span } = options;
  const base = {
    role: 'listitem',
    'aria-posinset': index + 1,
    'aria-setsize': rowCount,
    style: `top:${top}px;height:${ROW_HEIGHT}px`,
  };
  if (!event) {
    const empty = mode === 'history' ? 'no event at this seq' : 'no event here';
    const text = options.pageLoaded ? empty : 'loading…';
    return h(
      'div',
      // Focusable from the keyboard (arrow keys) although it has no button yet.
      { ...base, className: 'row row-placeholder', tabindex: -1 },
      h('span', { className: 'seq' }, `#${index + 1}`),
      h('span', { className: 'preview muted' }, text),
    );
  }
  const classes = ['row', `kind-${event.kind}`];
  if (expanded) classes.push('expanded');
  if (options.highlighted) classes.push('highlight');
  const preview = previewText({ event, span, mode });
  return h(
    'div',
    {
      ...base,
      style: `top:${top}px;height:${ROW_HEIGHT + (expanded ? EXPANDED_HEIGHT : 0)}px`,
      className: classes.join(' '),
      dataset: { seq: event.seq, kind: event.kind, tokens: event.tokens, chars: event.chars },
    },
    h(
      'div',
      { className: 'row-line', style: `height:${ROW_HEIGHT}px` },
      h('span', { className: 'seq' }, `#${event.seq}`),
      h(
        'time',
        { className: 'time', datetime: isoTime(event.timestamp) },
        formatTime(event.timestamp),
      ),
      h(
        'span',
        { className: 'author', title: `stored author: ${event.author}` },
        authorLabel(event, span),
      ),
      h('span', { className: `badge badge-${event.kind}` }, kindLabel(event.kind)),
      h('span', { className: 'preview', title: preview }, preview),
      h(
        'span',
        {
          className: 'tokens',
          title: `this event's estimated tokens (${formatNumber(event.chars)} characters)`,
        },
        `${formatNumber(event.tokens)} tok`,
      ),
      h(
        'button',
        {
          type: 'button',
          className: 'expand',
          'aria-expanded': String(expanded),
          'aria-label': `${expanded ? 'Hide' : 'Show'} the full event #${event.seq}`,
          onclick: options.onToggle,
        },
        expanded ? 'Hide' : 'Show',
      ),
    ),
    expanded ? renderDetail(span, options.full) : null,
  );
}
