// @ts-check
/** The compactions of a session, newest first: range, trigger, tokens, summarizer, summary. */
import { h } from './dom.js';
import { formatNumber } from './format.js';

/** @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan */

/** @param {CompactionSpan} span @param {(seq: number) => void} onShow */
function describe(span, onShow) {
  return h(
    'li',
    { className: 'compaction', dataset: { seq: span.seq } },
    h(
      'div',
      { className: 'compaction-head' },
      h('strong', {}, `#${span.seq}`),
      ` summarizes #${span.startSeq}–#${span.endSeq}`,
      h(
        'button',
        { type: 'button', className: 'link', onclick: () => onShow(span.seq) },
        'Show in timeline',
      ),
    ),
    h(
      'dl',
      { className: 'facts' },
      h('dt', {}, 'trigger'),
      h('dd', {}, span.trigger),
      h(
        'dt',
        {
          title:
            "the token trigger's figure: the model's reported prompt size plus an estimate of what came after, before -> after",
        },
        'next request, tokens (trigger)',
      ),
      h('dd', {}, `${formatNumber(span.tokensBefore)} → ${formatNumber(span.tokensAfter)}`),
      h('dt', {}, 'summarizer'),
      h('dd', {}, span.summarizer),
      span.fallback ? h('dt', {}, 'fallback') : null,
      span.fallback ? h('dd', {}, `from ${span.fallback.from}: ${span.fallback.reason}`) : null,
    ),
    h('p', { className: 'summary-text' }, span.summary),
  );
}

/**
 * @param {{ compactions: CompactionSpan[], onShow: (seq: number) => void }} options
 */
export function renderCompactionList({ compactions, onShow }) {
  if (compactions.length === 0) {
    return h(
      'p',
      { className: 'muted' },
      'No compaction yet: the next request holds the whole history.',
    );
  }
  const newestFirst = [...compactions].sort((a, b) => b.seq - a.seq);
  return h(
    'ol',
    { className: 'compaction-list' },
    newestFirst.map((span) => describe(span, onShow)),
  );
}
