// @ts-check
/**
 * Replay in the page: a transcript file (any format `orrery import` reads) and the compaction
 * settings go to `POST /inspector/api/replay`; the answer is `orrery replay --json`'s report,
 * shown as figures, a compaction table and the request-size chart. Nothing is stored.
 */
import { api } from './api.js';
import { renderChart } from './chart.js';
import { chartWithCost, costSummary } from './cost-view.js';
import { h } from './dom.js';
import { formatNumber, plural } from './format.js';

/**
 * @typedef {Omit<import('../../src/server/inspector/api-types.js').ReplayRequest, 'transcript'>}
 *   ReplaySettings
 * @typedef {{ trigger: import('../../src/server/inspector/api-types.js').CompactionSpan['trigger'],
 *   startSeq: number, endSeq: number, tokensBefore: number, tokensAfter: number,
 *   beforeCall: number, summarizer: string, fallback?: { from: string, reason?: string } }}
 *   ReplayCompaction
 */
/**
 * One report of `POST /inspector/api/replay` (`ReplayResponse`, declared there as plain JSON):
 * `orrery replay --json`'s object (`replayJson`, src/cli/replay-report.ts) and, when priced,
 * `cost`. `requests[].tokens`, `requests[].uncompactedTokens` and `threshold` are other names
 * the page also reads when a report has them.
 * @typedef {{ events: number, modelCalls: number, compactions: ReplayCompaction[],
 *   maxViewTokens: number, maxViewBytes: number, orphans: number, lossless: boolean,
 *   tokens: { withoutCompaction: number, withCompaction: number },
 *   requests: Array<{ withCompaction: number, withoutCompaction: number, bytes: number,
 *     tokens?: number, uncompactedTokens?: number }>,
 *   threshold?: number | null, cost?: import('./cost-view.js').ReplayCost }} ReplayReport
 */

/** `orrery replay`'s default token trigger (REPLAY_DEFAULT_THRESHOLD). */
const DEFAULT_THRESHOLD = 20_000;

const NUMBER_FIELDS = [
  {
    name: 'threshold',
    label: 'Threshold (tokens)',
    hint: 'default 20,000; 0 turns the token trigger off',
  },
  {
    name: 'retention',
    label: 'Retention (events)',
    hint: 'kept verbatim after a compaction; default 10',
  },
  { name: 'interval', label: 'Interval (invocations)', hint: 'sliding window; default 100' },
  {
    name: 'overlap',
    label: 'Overlap (invocations)',
    hint: 're-read by the next window; default 1',
  },
  { name: 'maxRequestBytes', label: 'Byte ceiling (bytes)', hint: 'optional' },
];

/** @param {{ name: string, label: string, hint: string }} field */
function numberField({ name, label, hint }) {
  const id = `replay-${name}`;
  return h(
    'div',
    { className: 'field' },
    h('label', { for: id }, label),
    h('input', {
      id,
      name,
      type: 'number',
      min: 0,
      step: 1,
      inputmode: 'numeric',
      'aria-describedby': `${id}-hint`,
    }),
    h('small', { id: `${id}-hint`, className: 'muted' }, hint),
  );
}

/**
 * The chart's data from a report: one point per model call, markers before compacted calls.
 * @param {ReplayReport} report
 */
export function replayChartData(report) {
  const requests = Array.isArray(report.requests) ? report.requests : [];
  const points = requests.map((request, index) => ({
    call: index + 1,
    tokens: request.withCompaction ?? request.tokens,
    uncompactedTokens: request.withoutCompaction ?? request.uncompactedTokens,
  }));
  const compactions = (report.compactions ?? [])
    .filter((compaction) => typeof compaction.beforeCall === 'number')
    .map((compaction) => ({ call: compaction.beforeCall }));
  return { points, compactions };
}

/** @param {ReplayReport} report */
function figures(report) {
  const without = report.tokens?.withoutCompaction ?? 0;
  const withCompaction = report.tokens?.withCompaction ?? 0;
  const saved = without > 0 ? Math.round((1 - withCompaction / without) * 100) : 0;
  const rows = [
    ['events', formatNumber(report.events)],
    ['model calls', formatNumber(report.modelCalls)],
    ['compactions', formatNumber(report.compactions?.length ?? 0)],
    [
      'largest request',
      `${formatNumber(report.maxViewTokens)} tokens, ${formatNumber(report.maxViewBytes)} bytes`,
    ],
    [
      'request tokens',
      `${formatNumber(withCompaction)} with compaction, ${formatNumber(without)} without (${saved}% less)`,
    ],
    ['orphans', plural(report.orphans ?? 0, 'request')],
    ['lossless', report.lossless ? 'yes: every event stored unchanged' : 'NO'],
  ];
  return h(
    'dl',
    { className: 'facts report-figures' },
    rows.flatMap(([term, value]) => [
      h('dt', {}, term),
      h('dd', { dataset: { figure: term } }, value),
    ]),
  );
}

/** @param {ReplayReport} report */
function compactionTable(report) {
  const compactions = report.compactions ?? [];
  if (compactions.length === 0)
    return h('p', { className: 'muted' }, 'No compaction: no request reached the threshold.');
  return h(
    'table',
    { className: 'replay-compactions' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['#', 'trigger', 'events summarized', 'tokens before → after', 'summarizer'].map((label) =>
          h('th', { scope: 'col' }, label),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      compactions.map((compaction, index) =>
        h(
          'tr',
          {},
          h('td', {}, String(index + 1)),
          h('td', {}, compaction.trigger),
          h('td', {}, `#${compaction.startSeq}–#${compaction.endSeq}`),
          h(
            'td',
            {},
            `${formatNumber(compaction.tokensBefore)} → ${formatNumber(compaction.tokensAfter)}`,
          ),
          h(
            'td',
            {},
            compaction.fallback
              ? `${compaction.summarizer} (fallback from ${compaction.fallback.from}: ${compaction.fallback.reason})`
              : compaction.summarizer,
          ),
        ),
      ),
    ),
  );
}

/** @param {ReplayReport} report @param {number | null} threshold @param {string} label */
function renderReport(report, threshold, label) {
  const { points, compactions } = replayChartData(report);
  return h(
    'section',
    { className: 'replay-report', 'aria-label': `Replay report of ${label}` },
    h('h2', {}, label),
    figures(report),
    report.cost ? costSummary(report.cost) : null,
    points.length > 0
      ? chartWithCost({
          report,
          compactions,
          tokenChart: () =>
            renderChart({
              points,
              threshold,
              compactions,
              caption: 'Estimated request tokens per model call (replay)',
            }),
        })
      : null,
    h('h3', {}, 'Compactions'),
    compactionTable(report),
  );
}

/**
 * The report's own threshold when it carries one, else what was asked (the CLI's default).
 * @param {ReplayReport} report
 * @param {ReplaySettings} settings
 */
function thresholdOf(report, settings) {
  // `none`: compaction off, so no threshold applies.
  if (settings.summarizer === 'none') return null;
  const threshold = report.threshold ?? settings.threshold ?? DEFAULT_THRESHOLD;
  return typeof threshold === 'number' && threshold > 0 ? threshold : null;
}

/**
 * @param {HTMLFormElement} form
 * @returns {ReplaySettings}
 */
function settingsOf(form) {
  const data = new FormData(form);
  /** @type {Record<string, number | string>} */
  const body = {};
  for (const { name } of NUMBER_FIELDS) {
    const value = String(data.get(name) ?? '').trim();
    if (value !== '') body[name] = Number(value);
  }
  body.summarizer = String(data.get('summarizer') ?? 'digest');
  const price = String(data.get('price') ?? '').trim();
  if (price !== '') body.price = price;
  return body;
}

/**
 * @param {{ root: HTMLElement, signal: AbortSignal, onError: (error: unknown) => void }} options
 */
export function showReplay({ root, signal, onError }) {
  const result = h('div', { className: 'replay-result', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit' }, 'Replay');
  const form = h(
    'form',
    { className: 'replay-form' },
    h(
      'div',
      { className: 'field' },
      h('label', { for: 'replay-file' }, 'Transcript file'),
      h('input', {
        id: 'replay-file',
        name: 'transcript',
        type: 'file',
        required: true,
        accept: '.jsonl,.json,.traj,.txt',
      }),
      h(
        'small',
        { className: 'muted' },
        'ADK, OpenAI chat, Claude Code, SWE-agent or AI SDK transcripts (what orrery import reads)',
      ),
    ),
    h('div', { className: 'field-grid' }, NUMBER_FIELDS.map(numberField)),
    h(
      'div',
      { className: 'field' },
      h('label', { for: 'replay-summarizer' }, 'Summarizer'),
      h(
        'select',
        { id: 'replay-summarizer', name: 'summarizer' },
        h('option', { value: 'digest', selected: true }, 'digest (offline, deterministic)'),
        h('option', { value: 'none' }, 'none'),
      ),
    ),
    h(
      'div',
      { className: 'field' },
      h('label', { for: 'replay-price' }, 'Price (provider:model)'),
      h('input', {
        id: 'replay-price',
        name: 'price',
        type: 'text',
        placeholder: 'anthropic:claude-sonnet-4-5',
        autocomplete: 'off',
        spellcheck: false,
        'aria-describedby': 'replay-price-hint',
      }),
      h(
        'small',
        { id: 'replay-price-hint', className: 'muted' },
        'optional: adds the cost in USD with and without compaction, and a cost chart',
      ),
    ),
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = form.elements.namedItem('transcript');
    const file = input instanceof HTMLInputElement ? input.files?.[0] : undefined;
    if (!file) return;
    const settings = settingsOf(form);
    submit.disabled = true;
    result.replaceChildren(h('p', { className: 'muted' }, `Replaying ${file.name}…`));
    try {
      const transcript = await file.text();
      const answer = await api.replay({ transcript, fileName: file.name, ...settings }, { signal });
      // `ReplayResponse` is declared as plain JSON objects: the page names their shape.
      const reports = /** @type {ReplayReport[]} */ (Array.isArray(answer) ? answer : [answer]);
      result.replaceChildren(
        ...reports.map((report, index) =>
          renderReport(
            report,
            thresholdOf(report, settings),
            reports.length > 1 ? `${file.name} (${index + 1})` : file.name,
          ),
        ),
      );
    } catch (error) {
      result.replaceChildren();
      if (!signal.aborted) onError(error);
    } finally {
      submit.disabled = false;
    }
  });
  root.replaceChildren(
    h('h1', {}, 'Replay a transcript'),
    h(
      'p',
      { className: 'muted' },
      'The transcript is replayed on the server in memory through compaction; nothing is stored.',
    ),
    form,
    result,
  );
}
