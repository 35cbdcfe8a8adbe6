// @ts-check
/**
 * The request-size chart: estimated request tokens per model call, with compaction (solid, one
 * circle per call carrying its figures as data attributes) and without (dashed), the threshold
 * line and a marker before each call a compaction preceded. Plain SVG, no library.
 */
import { h, s } from './dom.js';
import { formatCompact, formatNumber } from './format.js';

const WIDTH = 1000;
const HEIGHT = 250;
const MARGIN = { top: 16, right: 16, bottom: 34, left: 72 };
const Y_TICKS = 4;

/**
 * What the chart's y axis measures: its axis label, legend text, number formats (ticks and
 * exact) and the data attribute names each circle carries. Cost: assets/inspector/cost-view.js.
 * @typedef {{ axis: string, legend: string, unit: string, peak: string,
 *   tick: (value: number) => string, exact: (value: number) => string,
 *   dataNames: [string, string] }} Measure
 */
/**
 * One model call on the chart: `tokens` (or dollars: `Measure`) with compaction, and without
 * when known.
 * @typedef {{ call: number, seq?: number, tokens: number, uncompactedTokens?: number | null }}
 *   Point
 * @typedef {{ call: number, seq?: number }} CompactionMarker
 * @typedef {ReturnType<typeof scales>} Scale
 */
/** @type {Measure} */
export const TOKENS_MEASURE = {
  axis: 'tokens',
  legend: 'with compaction (estimated request tokens)',
  unit: 'tokens',
  peak: 'largest request',
  tick: formatCompact,
  exact: (value) => `${formatNumber(value)} tokens`,
  dataNames: ['tokens', 'uncompactedTokens'],
};

/** @param {Point[]} points @param {number | null} threshold */
function scales(points, threshold) {
  const calls = Math.max(1, points.at(-1)?.call ?? 1);
  let top = threshold ?? 0;
  for (const point of points) top = Math.max(top, point.tokens, point.uncompactedTokens ?? 0);
  // Scaled to the data (dollars per call are often under a cent); 1 when everything is 0.
  top = top > 0 ? top * 1.05 : 1;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  return {
    x: (/** @type {number} */ call) =>
      MARGIN.left + (calls === 1 ? plotWidth / 2 : ((call - 1) / (calls - 1)) * plotWidth),
    y: (/** @type {number} */ tokens) => MARGIN.top + plotHeight - (tokens / top) * plotHeight,
    top,
    calls,
  };
}

/**
 * @param {Point[]} points
 * @param {Scale} scale
 * @param {'tokens' | 'uncompactedTokens'} field
 * @param {string} className
 */
function polyline(points, scale, field, className) {
  const coordinates = points
    .filter((point) => typeof point[field] === 'number')
    // The filter kept numbers (TypeScript does not narrow `point[field]` through it).
    .map((point) => `${scale.x(point.call).toFixed(1)},${scale.y(Number(point[field])).toFixed(1)}`)
    .join(' ');
  return s('polyline', { className, points: coordinates, fill: 'none' });
}

/** @param {Scale} scale @param {Measure} measure */
function axes(scale, measure) {
  /** @type {SVGElement[]} */
  const items = [];
  for (let tick = 0; tick <= Y_TICKS; tick++) {
    const value = (scale.top / Y_TICKS) * tick;
    const y = scale.y(value);
    items.push(
      s('line', { className: 'grid', x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y, y2: y }),
      s(
        'text',
        { className: 'tick', x: MARGIN.left - 6, y: y + 4, 'text-anchor': 'end' },
        measure.tick(value),
      ),
    );
  }
  items.push(
    s('text', { className: 'tick', x: scale.x(1), y: HEIGHT - 18, 'text-anchor': 'middle' }, '1'),
    s(
      'text',
      { className: 'tick', x: scale.x(scale.calls), y: HEIGHT - 18, 'text-anchor': 'middle' },
      formatNumber(scale.calls),
    ),
    s(
      'text',
      {
        className: 'axis-label',
        x: MARGIN.left + (WIDTH - MARGIN.left - MARGIN.right) / 2,
        y: HEIGHT - 4,
        'text-anchor': 'middle',
      },
      'model call',
    ),
    s(
      'text',
      {
        className: 'axis-label y-axis-label',
        x: 14,
        y: MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) / 2,
        'text-anchor': 'middle',
        transform: `rotate(-90 14 ${MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) / 2})`,
      },
      measure.axis,
    ),
  );
  return items;
}

/** @param {Scale} scale @param {number | null} threshold */
function thresholdLine(scale, threshold) {
  if (typeof threshold !== 'number' || threshold <= 0) return [];
  const y = scale.y(threshold);
  return [
    s('line', {
      className: 'threshold',
      x1: MARGIN.left,
      x2: WIDTH - MARGIN.right,
      y1: y,
      y2: y,
      dataset: { threshold },
    }),
    s(
      'text',
      { className: 'threshold-label', x: WIDTH - MARGIN.right, y: y - 4, 'text-anchor': 'end' },
      `threshold ${formatNumber(threshold)}`,
    ),
  ];
}

/** @param {Scale} scale @param {CompactionMarker[]} compactions */
function compactionMarkers(scale, compactions) {
  return compactions
    .filter((marker) => typeof marker.call === 'number' && marker.call <= scale.calls)
    .map((marker) => {
      const x = scale.x(marker.call);
      return s(
        'g',
        { className: 'compaction-marker', dataset: { call: marker.call, seq: marker.seq } },
        s(
          'title',
          {},
          `compaction${marker.seq ? ` #${marker.seq}` : ''} before call ${marker.call}`,
        ),
        s('line', { x1: x, x2: x, y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom }),
        s('path', {
          d: `M${x - 5},${MARGIN.top - 8} L${x + 5},${MARGIN.top - 8} L${x},${MARGIN.top - 1} Z`,
        }),
      );
    });
}

/** @param {Scale} scale @param {Point[]} points @param {Measure} measure */
function pointCircles(scale, points, measure) {
  // One circle per call: its figures ride in data attributes (what the tests read back).
  const radius = points.length > 400 ? 1.5 : 3;
  return points.map((point) =>
    s(
      'circle',
      {
        className: 'point',
        cx: scale.x(point.call).toFixed(1),
        cy: scale.y(point.tokens).toFixed(1),
        r: radius,
        dataset: {
          call: point.call,
          seq: point.seq,
          [measure.dataNames[0]]: point.tokens,
          [measure.dataNames[1]]: point.uncompactedTokens,
        },
      },
      s(
        'title',
        {},
        `call ${point.call}: ${measure.exact(point.tokens)}${typeof point.uncompactedTokens === 'number' ? ` (without compaction ${measure.exact(point.uncompactedTokens)})` : ''}`,
      ),
    ),
  );
}

/**
 * The legend's entries: one for each thing the chart draws, none for a line it does not (no
 * figures without compaction, no threshold or a threshold of 0, no compaction marker).
 * @param {{ points: Array<{ uncompactedTokens?: number | null }>, threshold?: number | null,
 *   compactions?: unknown[], measure?: Measure }} options
 */
export function legendEntries({ points, threshold, compactions = [], measure = TOKENS_MEASURE }) {
  /** @type {Array<{ key: string, label: string }>} */
  const entries = [{ key: 'with', label: measure.legend }];
  if (points.some((point) => typeof point.uncompactedTokens === 'number')) {
    entries.push({ key: 'without', label: 'without compaction' });
  }
  if (typeof threshold === 'number' && threshold > 0) {
    entries.push({ key: 'threshold', label: 'threshold' });
  }
  if (compactions.length > 0) entries.push({ key: 'compaction', label: 'compaction' });
  return entries;
}

/**
 * `points`: `[{ call, seq?, tokens, uncompactedTokens }]`; `compactions`: `[{ call, seq? }]`
 * (a compaction before that call); `threshold`: a number or null; `measure`: what `tokens` and
 * `uncompactedTokens` hold (default tokens; cost-view.js passes dollars).
 * @param {{ points: Point[], threshold: number | null, compactions?: CompactionMarker[],
 *   caption: string, measure?: Measure }} options
 */
export function renderChart({
  points,
  threshold,
  compactions = [],
  caption,
  measure = TOKENS_MEASURE,
}) {
  if (points.length === 0) {
    return h(
      'figure',
      { className: 'chart chart-empty' },
      h('figcaption', {}, caption),
      h('p', {}, 'No model calls yet.'),
    );
  }
  const scale = scales(points, threshold);
  const peak = Math.max(...points.map((point) => point.tokens));
  const svg = s(
    'svg',
    {
      className: 'chart-svg',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-label': `${caption}: ${formatNumber(points.length)} model calls, ${measure.peak} ${measure.exact(peak)}, ${formatNumber(compactions.length)} compactions`,
    },
    axes(scale, measure),
    thresholdLine(scale, threshold),
    compactionMarkers(scale, compactions),
    polyline(points, scale, 'uncompactedTokens', 'line-without'),
    polyline(points, scale, 'tokens', 'line-with'),
    s('g', { className: 'points' }, pointCircles(scale, points, measure)),
  );
  const legend = h(
    'ul',
    { className: 'legend' },
    legendEntries({ points, threshold, compactions, measure }).map((entry) =>
      h('li', { className: `legend-${entry.key}` }, entry.label),
    ),
  );
  return h('figure', { className: 'chart' }, h('figcaption', {}, caption), svg, legend);
}
