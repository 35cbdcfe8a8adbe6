// @ts-check
/**
 * One session: its timeline (full history or the next request's view), its compactions, the
 * request-size chart, and live updates while the page is open.
 */
import { api } from './api.js';
import { openBranchFilter } from './branch-filter.js';
import { createCallTrace } from './call-trace.js';
import { renderChart } from './chart.js';
import { renderChatBox } from './chat-box.js';
import { renderCompactionList } from './compaction-list.js';
import { chartWithCost } from './cost-view.js';
import { h } from './dom.js';
import { formatNumber, plural, sessionCountsText } from './format.js';
import { followSession } from './live-stream.js';
import { sessionHash } from './routes.js';
import { createStatePanel } from './state-panel.js';
import { createTimeline } from './timeline.js';

/**
 * @typedef {import('../../src/server/inspector/api-types.js').ViewResponse} ViewResponse
 * @typedef {import('./timeline.js').TimelineMode} TimelineMode
 */

const CHART_REFRESH_MS = 1500;
/** The view's pages in sight are refetched at most this often while events arrive. */
const VIEW_REFRESH_MS = 1000;

/**
 * @param {boolean} initialView
 * @param {(mode: TimelineMode) => void} onChange
 */
function modeToggle(initialView, onChange) {
  /** @param {TimelineMode} value @param {string} label */
  const option = (value, label) =>
    h(
      'label',
      { className: 'toggle-option' },
      h('input', {
        type: 'radio',
        name: 'timeline-mode',
        value,
        checked: (value === 'view') === initialView,
        onchange: () => onChange(value),
      }),
      label,
    );
  return h(
    'fieldset',
    { className: 'toggle' },
    h('legend', {}, 'Show'),
    option('history', 'Full history'),
    option('view', 'Next request (view)'),
  );
}

/**
 * `action`, once calls pause for `milliseconds`; never after `signal` aborts.
 * @param {() => void} action
 * @param {number} milliseconds
 * @param {AbortSignal} signal
 */
function debounce(action, milliseconds, signal) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  signal.addEventListener('abort', () => clearTimeout(timer));
  return () => {
    clearTimeout(timer);
    timer = setTimeout(action, milliseconds);
  };
}

/**
 * @param {{ root: HTMLElement, key: import('./routes.js').SessionKey, view: boolean,
 *   branch?: string | null, signal: AbortSignal, onError: (error: unknown) => void }} options
 */
export async function showSession({ root, key, view, branch = null, signal, onError }) {
  const info = await api.info();
  const pageSize = info.pageSize;
  const firstPage = await api.timeline(key, { afterSeq: 0, limit: pageSize, signal });
  // Workflow branches (branch-filter.js): the filter, and a chosen branch's rows and view.
  const branches = await openBranchFilter({
    key,
    branch,
    signal,
    onError,
    pageSize,
    eventCount: firstPage.eventCount,
    isView: () => timeline.mode === 'view',
    onLoaded: () => {
      showCounts();
      showCompactions();
    },
  });
  const viewSummary = h('p', { className: 'view-summary', 'aria-live': 'polite' });
  const showViewSummary = (/** @type {ViewResponse} */ result) => {
    if (timeline.mode !== 'view') return;
    const threshold =
      typeof result.threshold === 'number' ? ` (threshold ${formatNumber(result.threshold)})` : '';
    // Not the compaction cards' figure: theirs is the token trigger's count (the model's
    // reported prompt size when there is one), this one orrery's estimate of the text.
    viewSummary.textContent = `The next request holds ${plural(result.total, 'event')}, about ${formatNumber(result.tokens)} tokens by orrery's estimate (text, instruction and tools)${threshold}; a compaction's "tokens (trigger)" counts as the token trigger does, from the model's reported usage.`;
  };
  const timeline = createTimeline({
    key,
    firstPage,
    signal,
    onError,
    onViewSummary: showViewSummary,
    branch: branches.timeline,
    pageSize,
  });
  const callTrace = createCallTrace({ key, pageSize, signal, onError });
  const statePanel = createStatePanel({ key, signal, onError });
  const refreshPanels = debounce(
    () => {
      callTrace.refresh();
      statePanel.refresh();
    },
    CHART_REFRESH_MS,
    signal,
  );
  const chatBox = renderChatBox({
    key,
    info,
    signal,
    onError,
    // After a run: the trace, the state and the chart (declared below) catch up.
    onRunEnd: () => {
      refreshPanels();
      refreshChart();
    },
  });
  const counts = h('span', { className: 'counts' });
  const liveStatus = h('span', { className: 'live-status', role: 'status' }, 'connecting…');
  const chartSlot = h(
    'section',
    { className: 'chart-slot', 'aria-label': 'Request size per model call' },
    h('p', { className: 'muted' }, 'Loading the chart…'),
  );
  const compactionSlot = h('div', { className: 'compaction-slot' });

  const showCounts = () => {
    counts.textContent = sessionCountsText({
      eventCount: timeline.eventCount,
      compactions: timeline.compactions,
    });
  };
  const showCompactions = () => {
    compactionSlot.replaceChildren(
      renderCompactionList({
        compactions: timeline.compactions,
        onShow: (seq) => {
          if (timeline.mode !== 'history') setMode('history');
          timeline.scrollToSeq(seq);
        },
      }),
    );
  };
  /** Tokens or cost: kept across the chart's live redraws. @type {'tokens' | 'cost'} */
  let chartMeasure = 'tokens';
  const loadChart = async () => {
    try {
      const chart = await api.chart(key, { signal });
      const tokenChart = () =>
        renderChart({
          points: chart.points,
          threshold: chart.threshold,
          compactions: chart.compactions,
          caption: 'Estimated request tokens per model call',
        });
      // With a catalog price for the agent's model: USD per call from the reported usage.
      const cost = chart.cost;
      chartSlot.replaceChildren(
        cost
          ? chartWithCost({
              report: {
                cost: { model: cost.model, perCallUsd: { withCompaction: cost.perCallUsd } },
              },
              tokenChart,
              compactions: chart.compactions,
              caption: `Estimated USD per model call (${cost.model}, from reported usage)`,
              measure: chartMeasure,
              onMeasure: (measure) => {
                chartMeasure = measure;
              },
            })
          : tokenChart(),
      );
    } catch (error) {
      if (!signal.aborted) onError(error);
    }
  };
  const setMode = (/** @type {TimelineMode} */ mode) => {
    for (const input of root.querySelectorAll('input[name="timeline-mode"]')) {
      if (input instanceof HTMLInputElement) input.checked = input.value === mode;
    }
    history.replaceState(null, '', sessionHash(key, mode === 'view', branch));
    if (mode === 'view') {
      viewSummary.textContent = 'Loading the view…';
      timeline.setMode('view');
    } else {
      viewSummary.textContent = '';
      timeline.setMode('history');
    }
  };
  const refreshChart = debounce(loadChart, CHART_REFRESH_MS, signal);
  const refreshView = debounce(() => timeline.refreshView(), VIEW_REFRESH_MS, signal);

  root.replaceChildren(
    h(
      'nav',
      { className: 'breadcrumb', 'aria-label': 'Breadcrumb' },
      h('a', { href: '#/' }, 'Sessions'),
      ' / ',
      h('a', { href: `#/?app=${encodeURIComponent(key.appName)}` }, key.appName),
      ' / ',
      h(
        'a',
        {
          href: `#/?app=${encodeURIComponent(key.appName)}&user=${encodeURIComponent(key.userId)}`,
        },
        key.userId,
      ),
    ),
    h('h1', { className: 'session-title' }, key.sessionId),
    h('p', { className: 'session-meta' }, counts, ' · ', liveStatus),
    chartSlot,
    chatBox,
    h('div', { className: 'panels' }, callTrace.element, statePanel.element),
    h('div', { className: 'toolbar' }, modeToggle(view, setMode), branches.element, viewSummary),
    h(
      'div',
      { className: 'session-body' },
      timeline.element,
      h(
        'aside',
        { className: 'compactions', 'aria-label': 'Compactions' },
        h('h2', {}, 'Compactions'),
        compactionSlot,
      ),
    ),
  );
  showCounts();
  showCompactions();
  timeline.start();
  if (view) setMode('view');
  void loadChart();

  void followSession({
    key,
    afterSeq: firstPage.eventCount,
    signal,
    onError,
    onStatus: (status) => {
      liveStatus.textContent = status === 'live' ? 'live' : status;
      liveStatus.dataset.status = status;
    },
    onEvent: (event) => {
      timeline.appendEvent(event);
      showCounts();
      if (event.kind === 'model' || event.kind === 'tool-call' || event.kind === 'compaction') {
        refreshChart();
      }
      refreshView();
      if (!event.partial) refreshPanels();
    },
    onCompaction: (span) => {
      timeline.addCompaction(span);
      showCounts();
      showCompactions();
      refreshChart();
      refreshView();
    },
  });
}
