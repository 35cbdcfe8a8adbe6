// @ts-check
/**
 * The virtualized timeline. Only the rows in sight (plus a margin) exist in the DOM, and
 * history is fetched one page at a time as the rows of that page come into sight, so a
 * 10,000-event session costs a page or two. Row `i` of the history is the event with seq
 * `i + 1` (stores number events 1, 2, ... with no gaps; a gap shows as an empty row).
 * Rows have one height; an expanded row (the full event, fetched on click) adds a fixed one,
 * so positions stay computable without measuring. Compactions are drawn as spans in a gutter
 * over the rows they summarize.
 */
import { api } from './api.js';
import { gutterWidth, spanButtons } from './compaction-spans.js';
import { h } from './dom.js';
import { rowIndexAt, rowTop } from './timeline-geometry.js';
import { rowAfterKey } from './timeline-keys.js';
import { EXPANDED_HEIGHT, ROW_HEIGHT, renderTimelineRow } from './timeline-row.js';
import { createViewPages } from './view-pages.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineEvent} TimelineEvent
 * @typedef {import('../../src/server/inspector/api-types.js').TimelineResponse} TimelineResponse
 * @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan
 * @typedef {import('../../src/server/inspector/api-types.js').ViewResponse} ViewResponse
 * @typedef {import('./api.js').SessionKey} SessionKey
 * @typedef {import('./timeline-row.js').FullEvent} FullEvent
 * `history`: every stored event, row `i` = seq `i + 1`; `view`: the next request's events.
 * @typedef {'history' | 'view'} TimelineMode
 * A workflow branch's rows and its view's pages (branch-filter.js).
 * @typedef {{ rows: ReturnType<typeof import('./branch-filter.js').createBranchRows>,
 *   loadView: (offset: number, limit: number) => Promise<ViewResponse> }} BranchTimeline
 */

const OVERSCAN = 12;
const FETCH_DELAY_MS = 60;
const FIRST_ROW_MARK = 'inspector:first-timeline-row';

/**
 * `pageSize`: events per history or view page (the server's, `/info`); `branch`: a workflow
 * branch's `rows` and `loadView` (branch-filter.js); absent: every event.
 * @param {{ key: SessionKey, firstPage: TimelineResponse, signal: AbortSignal,
 *   onError: (error: unknown) => void, onViewSummary?: (summary: ViewResponse) => void,
 *   branch?: BranchTimeline, pageSize: number }} options
 */
export function createTimeline({ pageSize, ...options }) {
  const { key, firstPage, signal, onError, onViewSummary, branch } = options;
  const state = {
    /** @type {TimelineMode} */
    mode: 'history',
    eventCount: firstPage.eventCount,
    /** The largest seq seen: rows reach it even if a store's seqs had gaps. */
    lastSeq: firstPage.events.at(-1)?.seq ?? 0,
    /** @type {Map<number, TimelineEvent>} */
    bySeq: new Map(),
    loadedPages: new Set([0]),
    /** @type {Set<number>} */
    loadingPages: new Set(),
    /** @type {CompactionSpan[]} */
    compactions: [],
    /** Set by a view refresh when the view was scrolled to its end: it keeps following it. */
    viewFollowsEnd: false,
    /** The next render scrolls to the end (once the canvas has its new height). */
    scrollToEnd: false,
    /** @type {Set<number>} The expanded rows' indexes, in the current mode. */
    expanded: new Set(),
    /** @type {number[]} */
    expandedSorted: [],
    /** @type {number | null} */
    highlightSeq: null,
    firstRowMarked: false,
    spansKey: '',
  };
  /** @type {Map<number, FullEvent>} */
  const fullEvents = new Map();
  /** @type {Map<number, { element: HTMLElement, key: string }>} The rows drawn, by index. */
  const rows = new Map();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let fetchTimer;
  let frame = 0;
  /** @type {number | null} */
  let focusAfterRender = null;
  const viewPages = createViewPages({
    pageSize,
    signal,
    onError,
    load: branch?.loadView ?? ((offset, limit) => api.view(key, { offset, limit, signal })),
    onLoaded: () => scheduleRender(),
    onSummary: (summary) => {
      // Fewer events than before: a compaction replaced some, so row indexes moved.
      if (summary.total < summary.previousTotal) {
        state.expanded.clear();
        state.expandedSorted = [];
      }
      if (state.viewFollowsEnd) {
        state.viewFollowsEnd = false;
        state.scrollToEnd = true;
      }
      onViewSummary?.(summary);
    },
  });

  const spanLayer = h('div', { className: 'span-layer' });
  const rowLayer = h('div', { className: 'row-layer', role: 'list', 'aria-label': 'Events' });
  const canvas = h('div', { className: 'timeline-canvas' }, spanLayer, rowLayer);
  const scroller = h(
    'div',
    {
      className: 'timeline-scroller',
      tabindex: 0,
      role: 'region',
      'aria-label': 'Session timeline',
      'aria-describedby': 'timeline-keys',
    },
    canvas,
  );
  const keysHint = 'Arrow keys, Page Up, Page Down, Home and End move between events.';
  const element = h(
    'div',
    { className: 'timeline' },
    h('p', { id: 'timeline-keys', className: 'visually-hidden' }, keysHint),
    scroller,
  );

  for (const event of firstPage.events) state.bySeq.set(event.seq, event);
  mergeCompactions(firstPage.compactions ?? []);

  /** @param {CompactionSpan[]} spans */
  function mergeCompactions(spans) {
    const known = new Map(state.compactions.map((span) => [span.seq, span]));
    for (const span of spans) known.set(span.seq, span);
    state.compactions = [...known.values()].sort((a, b) => a.seq - b.seq);
  }

  const branchRows = branch?.rows;
  if (branchRows) branchRows.onLoaded = () => scheduleRender();
  /** Rows by position (the view's, a branch's: spans cover its own rows), or row `i` = seq `i + 1`. */
  const paged = () => (state.mode === 'view' ? viewPages : branchRows);
  const rowCount = () => paged()?.total ?? Math.max(state.eventCount, state.lastSeq);
  /** @param {number} index */
  const eventAt = (index) => {
    const pages = paged();
    return pages ? pages.eventAt(index) : state.bySeq.get(index + 1);
  };
  const pageOf = (/** @type {number} */ index) => Math.floor(index / pageSize);
  const pageLoaded = (/** @type {number} */ page) =>
    paged()?.isLoaded(page) ?? state.loadedPages.has(page);
  const shownCompactions = () => branchRows?.spans ?? state.compactions;
  const atEnd = () =>
    scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - ROW_HEIGHT * 2;

  const geometry = () => ({
    expandedSorted: state.expandedSorted,
    rowHeight: ROW_HEIGHT,
    expandedHeight: EXPANDED_HEIGHT,
  });
  const topOf = (/** @type {number} */ index) => rowTop({ index, ...geometry() });
  const totalHeight = () => rowCount() * ROW_HEIGHT + state.expandedSorted.length * EXPANDED_HEIGHT;
  /** The row under pixel `y` of the canvas. @param {number} y */
  const indexAt = (y) => rowIndexAt({ y, rowCount: rowCount(), ...geometry() });

  /** @param {number} seq */
  function spanOf(seq) {
    return shownCompactions().find((span) => span.seq === seq);
  }

  /** @param {number} page */
  function fetchPage(page) {
    state.loadingPages.add(page);
    api
      .timeline(key, { afterSeq: page * pageSize, limit: pageSize, signal })
      .then((result) => {
        for (const event of result.events) state.bySeq.set(event.seq, event);
        state.lastSeq = Math.max(state.lastSeq, result.events.at(-1)?.seq ?? 0);
        // The count stays the first page's plus each live event: counting again here would
        // count twice the events the stream also delivers.
        mergeCompactions(result.compactions ?? []);
        state.loadedPages.add(page);
      })
      .catch((error) => {
        if (!signal.aborted) onError(error);
      })
      .finally(() => {
        state.loadingPages.delete(page);
        if (!signal.aborted) scheduleRender();
      });
  }

  /** Fetches the pages still missing in sight, once scrolling pauses (not every page passed). */
  function scheduleFetch() {
    clearTimeout(fetchTimer);
    fetchTimer = setTimeout(() => {
      if (signal.aborted || rowCount() === 0) return;
      const { first, last } = visibleRange();
      const pages = paged();
      if (pages) {
        pages.ensure(first, last);
        return;
      }
      for (let page = pageOf(first); page <= pageOf(last); page++) {
        if (!state.loadedPages.has(page) && !state.loadingPages.has(page)) fetchPage(page);
      }
    }, FETCH_DELAY_MS);
  }

  function visibleRange() {
    const first = Math.max(0, indexAt(scroller.scrollTop) - OVERSCAN);
    const last = Math.min(
      rowCount() - 1,
      indexAt(scroller.scrollTop + scroller.clientHeight) + OVERSCAN,
    );
    return { first, last };
  }

  /** @param {number} index @param {TimelineEvent} event */
  function toggle(index, event) {
    if (state.expanded.has(index)) {
      state.expanded.delete(index);
    } else {
      state.expanded.add(index);
      if (!fullEvents.has(event.seq)) {
        fullEvents.set(event.seq, { status: 'loading' });
        api
          .event(key, event.seq, { signal })
          .then((full) => fullEvents.set(event.seq, { status: 'loaded', full }))
          .catch((error) => {
            fullEvents.delete(event.seq);
            if (!signal.aborted) onError(error);
          })
          .finally(() => scheduleRender());
      }
    }
    state.expandedSorted = [...state.expanded].sort((a, b) => a - b);
    focusAfterRender = index;
    render();
  }

  /**
   * What row `index` shows: an unchanged key, an unchanged row (not drawn again).
   * @param {number} index
   * @param {TimelineEvent | undefined} event
   * @param {number} top
   */
  function rowKey(index, event, top) {
    const full = event ? (fullEvents.get(event.seq)?.status ?? '') : '';
    const span = event?.kind === 'compaction' && spanOf(event.seq) ? 'span' : '';
    const placeholder = event ? '' : pageLoaded(pageOf(index));
    return [
      state.mode,
      top,
      event?.seq ?? '-',
      placeholder,
      state.expanded.has(index),
      full,
      span,
      event?.seq === state.highlightSeq,
      rowCount(),
    ].join('|');
  }

  /** @param {number} index @param {HTMLElement} element */
  function insertInOrder(index, element) {
    /** @type {HTMLElement | null} */
    let next = null;
    let nextIndex = Number.POSITIVE_INFINITY;
    for (const [other, row] of rows) {
      if (other > index && other < nextIndex) {
        nextIndex = other;
        next = row.element;
      }
    }
    rowLayer.insertBefore(element, next);
  }

  function renderSpans() {
    const spans = state.mode === 'history' ? shownCompactions() : [];
    const spansKey = [state.mode, totalHeight(), spans.map((span) => span.seq).join(',')].join('|');
    if (spansKey === state.spansKey) return;
    state.spansKey = spansKey;
    canvas.style.setProperty('--gutter', `${gutterWidth(spans.length)}px`);
    const spanTop = branchRows
      ? (/** @type {number} */ seq) => topOf(branchRows.rowsUpTo(seq))
      : topOf;
    spanLayer.replaceChildren(
      ...spanButtons({ spans, topOf: spanTop, minHeight: ROW_HEIGHT, onSelect: scrollToSeq }),
    );
  }

  function render() {
    frame = 0;
    canvas.style.height = `${totalHeight()}px`;
    if (state.scrollToEnd) {
      state.scrollToEnd = false;
      if (state.mode === 'view') scroller.scrollTop = scroller.scrollHeight;
    }
    renderSpans();
    const count = rowCount();
    const { first, last } = count === 0 ? { first: 0, last: -1 } : visibleRange();
    // The focused row stays, even out of sight: removing it would drop the keyboard's place.
    const focused = focusedRowIndex();
    for (const [index, row] of rows) {
      if ((index < first || index > last) && index !== focused) {
        row.element.remove();
        rows.delete(index);
      }
    }
    let missing = false;
    for (let index = first; index <= last; index++) {
      const event = eventAt(index);
      if (!event) missing = true;
      const top = topOf(index);
      const keyOfRow = rowKey(index, event, top);
      const existing = rows.get(index);
      if (existing?.key === keyOfRow) continue;
      const rowElement = renderTimelineRow({
        index,
        event,
        top,
        rowCount: count,
        mode: state.mode,
        pageLoaded: pageLoaded(pageOf(index)),
        expanded: state.expanded.has(index),
        highlighted: event?.seq === state.highlightSeq,
        span: event?.kind === 'compaction' ? spanOf(event.seq) : undefined,
        full: event ? fullEvents.get(event.seq) : undefined,
        onToggle: () => {
          if (event) toggle(index, event);
        },
      });
      if (existing) existing.element.replaceWith(rowElement);
      else insertInOrder(index, rowElement);
      rows.set(index, { element: rowElement, key: keyOfRow });
    }
    const pagedMissing = count > 0 && paged()?.missing(first, last);
    if (missing || pagedMissing) scheduleFetch();
    if (!state.firstRowMarked && rowLayer.querySelector('.row[data-seq]')) {
      state.firstRowMarked = true;
      performance.mark(FIRST_ROW_MARK);
    }
    // A focused row drawn again (its page arrived) takes the focus back.
    if (
      focusAfterRender === null &&
      focused !== null &&
      !rowLayer.contains(document.activeElement)
    ) {
      focusAfterRender = focused;
    }
    if (focusAfterRender !== null) {
      const element = rows.get(focusAfterRender)?.element;
      const button = element?.querySelector('button.expand');
      (button instanceof HTMLElement ? button : element)?.focus({ preventScroll: true });
      focusAfterRender = null;
    }
  }

  function focusedRowIndex() {
    for (const [index, row] of rows) {
      if (row.element.contains(document.activeElement)) return index;
    }
    return null;
  }

  /**
   * Brings row `index` into sight and focuses it (its Show button, when it has one).
   * @param {number} index
   */
  function focusRow(index) {
    const top = topOf(index);
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight) {
      scroller.scrollTop = top + ROW_HEIGHT - scroller.clientHeight;
    }
    focusAfterRender = index;
    render();
  }

  /** @param {KeyboardEvent} event */
  function onRowKey(event) {
    if (!(event.target instanceof Element)) return;
    const rowElement = event.target.closest('.row');
    const onRow = event.target === rowElement || event.target.matches('button.expand');
    if (!rowElement || !onRow || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = rowAfterKey({
      key: event.key,
      index: Number(rowElement.getAttribute('aria-posinset')) - 1,
      rowCount: rowCount(),
      rowsPerScreen: Math.floor(scroller.clientHeight / ROW_HEIGHT),
    });
    if (target === null) return;
    event.preventDefault();
    focusRow(target);
  }

  function scheduleRender() {
    if (frame === 0) frame = requestAnimationFrame(render);
  }

  /** @param {number} seq */
  function scrollToSeq(seq) {
    const index = branchRows ? branchRows.rowOfSeq(seq) : seq - 1;
    if (state.mode !== 'history' || index < 0) return;
    state.highlightSeq = seq;
    scroller.scrollTop = Math.max(0, topOf(index) - scroller.clientHeight / 3);
    focusAfterRender = index;
    render();
  }

  scroller.addEventListener('scroll', scheduleRender, { passive: true });
  rowLayer.addEventListener('keydown', onRowKey);
  const resizeObserver = new ResizeObserver(scheduleRender);
  resizeObserver.observe(scroller);
  signal.addEventListener('abort', () => {
    resizeObserver.disconnect();
    clearTimeout(fetchTimer);
    if (frame) cancelAnimationFrame(frame);
  });

  return {
    element,
    /** Call once the element is in the document (rendering needs its height). */
    start: render,
    get compactions() {
      return shownCompactions();
    },
    get eventCount() {
      return state.eventCount;
    },
    get mode() {
      return state.mode;
    },
    /**
     * `history`, or `view`: the events the next request holds, paged as they come in sight.
     * @param {TimelineMode} mode
     */
    setMode(mode) {
      state.mode = mode;
      state.viewFollowsEnd = false;
      state.scrollToEnd = false;
      if (mode === 'view') viewPages.start();
      else viewPages.stop();
      state.expanded.clear();
      state.expandedSorted = [];
      for (const row of rows.values()) row.element.remove();
      rows.clear();
      scroller.scrollTop = 0;
      render();
    },
    /**
     * A live event: shown at once; the view follows the end when it was at the end.
     * @param {TimelineEvent} event
     */
    appendEvent(event) {
      const wasAtEnd = atEnd();
      if (!state.bySeq.has(event.seq)) state.eventCount += 1;
      state.bySeq.set(event.seq, event);
      state.lastSeq = Math.max(state.lastSeq, event.seq);
      render();
      if (wasAtEnd && state.mode === 'history') scroller.scrollTop = scroller.scrollHeight;
    },
    /** The view changed (a live event): the rows in sight are fetched again. */
    refreshView() {
      const pages = paged();
      if (!pages) return;
      state.viewFollowsEnd = state.mode === 'view' && viewPages.total > 0 && atEnd();
      const { first, last } = rowCount() === 0 ? { first: 0, last: 0 } : visibleRange();
      pages.refresh(first, last);
    },
    /** @param {CompactionSpan} span */
    addCompaction(span) {
      mergeCompactions([span]);
      render();
    },
    scrollToSeq,
  };
}
