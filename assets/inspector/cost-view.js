// @ts-check
/**
 * A priced replay in the page (`price` in the replay form, docs/inspector.md#cost): the report's
 * `cost` as a summary (dollars with and without compaction, the cache-read share, the
 * summarizer's dollars) and the request chart with a "Tokens | Cost (USD)" toggle; cost draws
 * `cost.perCallUsd` per model call (the agent's model; summarizer calls are in the summary).
 */
import { renderChart } from './chart.js';
import { h } from './dom.js';
import { formatNumber } from './format.js';

/**
 * A priced replay report's `cost`: `ReplayCost` (src/runtime/replay/replay-cost.ts), restated,
 * not imported: that module's imports need Node's types, which the page's check leaves out.
 * @typedef {{ inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number,
 *   outputTokens: number, summarizerUsd: number, usd: number }} ReplayCostFigures
 * @typedef {{ model: string, currency: 'USD', summarizerModel: string, cacheHints: boolean,
 *   withCompaction: ReplayCostFigures, withoutCompaction: ReplayCostFigures,
 *   compactions: Array<{ beforeCall: number, summarizerUsd: number,
 *     paybackCalls: number | null, callsAfter: number }>,
 *   perCallUsd: { withCompaction: number[], withoutCompaction: number[] } }} ReplayCost
 * The live session chart's `cost` (`ChartCost`): USD per call, `null` for a call not priced.
 * @typedef {{ model: string, perCallUsd: { withCompaction: Array<number | null>,
 *   withoutCompaction?: number[] } }} PricedCalls
 */

/**
 * Dollars: cents from $1 up, four decimals under (a single call often costs under a cent).
 * @param {number | undefined} value
 */
export function formatUsd(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;
}

/**
 * Axis ticks: fewer decimals than `formatUsd`, enough to tell ticks apart.
 * @param {number} value
 */
function tickUsd(value) {
  if (value === 0) return '$0';
  if (value >= 10) return `$${value.toFixed(0)}`;
  if (value >= 0.1) return `$${value.toFixed(2)}`;
  return `$${value.toFixed(3)}`;
}

/** @type {import('./chart.js').Measure} */
export const COST_MEASURE = {
  axis: 'USD per call',
  legend: 'with compaction (USD per model call)',
  unit: 'USD',
  peak: 'most expensive call',
  tick: tickUsd,
  exact: formatUsd,
  dataNames: ['usd', 'uncompactedUsd'],
};

/**
 * The cost chart's points: `perCallUsd` in call order (null when the report has no cost).
 * @param {{ cost?: ReplayCost | PricedCalls }} report
 * @returns {import('./chart.js').Point[] | null}
 */
export function costChartPoints(report) {
  const perCall = report?.cost?.perCallUsd;
  if (!perCall || !Array.isArray(perCall.withCompaction)) return null;
  const without = Array.isArray(perCall.withoutCompaction) ? perCall.withoutCompaction : [];
  // A call without an estimate (the live chart's `null`: no usage or no price) is not drawn.
  /** @type {import('./chart.js').Point[]} */
  const points = [];
  perCall.withCompaction.forEach((usd, index) => {
    if (typeof usd !== 'number') return;
    const uncompacted = without[index];
    points.push({
      call: index + 1,
      tokens: usd,
      uncompactedTokens: typeof uncompacted === 'number' ? uncompacted : null,
    });
  });
  return points;
}

/**
 * Cache reads as a share of every prompt token sent.
 * @param {Partial<ReplayCostFigures>} figures
 */
function cacheShare(figures) {
  const input = figures?.inputTokens ?? 0;
  return input > 0 ? `${Math.round(((figures.cacheReadTokens ?? 0) / input) * 100)}%` : '–';
}

/**
 * The summary of `report.cost`: one row per figure, each tagged `data-cost`.
 * @param {ReplayCost} cost
 */
export function costSummary(cost) {
  /** @type {Partial<ReplayCostFigures>} */
  const withCompaction = cost.withCompaction ?? {};
  /** @type {Partial<ReplayCostFigures>} */
  const without = cost.withoutCompaction ?? {};
  const saved =
    without.usd !== undefined && without.usd > 0
      ? Math.round((1 - (withCompaction.usd ?? 0) / without.usd) * 100)
      : 0;
  const rows = [
    ['priced as', `${cost.model}${cost.cacheHints ? ' (cache hints)' : ''}`],
    ['USD with compaction', formatUsd(withCompaction.usd)],
    [
      'USD without compaction',
      // Compaction can cost more: lost cache reads and the summarizer's calls.
      `${formatUsd(without.usd)} (${saved >= 0 ? `${saved}% saved` : `compaction costs ${-saved}% more`})`,
    ],
    [
      'cache-read share',
      `${cacheShare(withCompaction)} of prompt tokens with compaction, ${cacheShare(without)} without`,
    ],
    [
      'summarizer USD',
      `${formatUsd(withCompaction.summarizerUsd)} (${cost.summarizerModel}, ${formatNumber(cost.compactions?.length ?? 0)} calls)`,
    ],
  ];
  return h(
    'section',
    { className: 'cost-summary', 'aria-label': 'Cost' },
    h('h3', {}, 'Cost'),
    h(
      'dl',
      { className: 'facts cost-figures' },
      rows.flatMap(([term, value]) => [
        h('dt', {}, term),
        h('dd', { dataset: { cost: term } }, value),
      ]),
    ),
  );
}

/**
 * The request chart with a "Tokens | Cost (USD)" toggle when the report is priced; the token
 * chart alone otherwise. `tokenChart` draws the token chart (the replay form's, the session
 * page's). `measure` is the one shown first (default tokens); `onMeasure` hears each choice, so
 * a chart redrawn with new data keeps it. `caption` names the cost chart.
 * @param {{ report: { cost?: ReplayCost | PricedCalls }, tokenChart: () => HTMLElement,
 *   compactions: Array<{ call: number }>, caption?: string,
 *   measure?: 'tokens' | 'cost', onMeasure?: (measure: 'tokens' | 'cost') => void }} options
 */
export function chartWithCost({
  report,
  tokenChart,
  compactions,
  caption,
  measure: initial = 'tokens',
  onMeasure,
}) {
  const points = costChartPoints(report);
  if (!points) return tokenChart();
  const costChart = () =>
    renderChart({
      points,
      threshold: null, // the threshold is in tokens: no line (and no legend entry) in dollars
      compactions,
      caption: caption ?? `Estimated USD per model call (replay, ${report.cost?.model})`,
      measure: COST_MEASURE,
    });
  const holder = h(
    'div',
    { className: 'chart-holder' },
    initial === 'cost' ? costChart() : tokenChart(),
  );
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @param {'tokens' | 'cost'} measure */
  const choose = (measure) => {
    for (const button of buttons) {
      button.setAttribute('aria-pressed', String(button.dataset.measure === measure));
    }
    holder.replaceChildren(measure === 'cost' ? costChart() : tokenChart());
    onMeasure?.(measure);
  };
  for (const [measure, label] of /** @type {const} */ ([
    ['tokens', 'Tokens'],
    ['cost', 'Cost (USD)'],
  ])) {
    buttons.push(
      /** @type {HTMLButtonElement} */ (
        h(
          'button',
          {
            type: 'button',
            className: 'measure-option',
            'aria-pressed': String(measure === initial),
            dataset: { measure },
            onclick: () => choose(measure),
          },
          label,
        )
      ),
    );
  }
  return h(
    'div',
    { className: 'chart-with-cost' },
    h('div', { className: 'chart-toggle', role: 'group', 'aria-label': 'Chart shows' }, buttons),
    holder,
  );
}
