// @ts-check
/**
 * The compaction spans in the timeline's gutter: one button per compaction, from the first row
 * it summarizes to the last, in lanes so overlapping spans stay apart.
 */
import { h } from './dom.js';
import { compactionText } from './event-text.js';

/** @typedef {import('../../src/server/inspector/api-types.js').CompactionSpan} CompactionSpan */

const LANE_WIDTH = 10;
const MAX_LANES = 12;

/** The gutter's width for `count` spans, in pixels. @param {number} count */
export function gutterWidth(count) {
  return Math.min(MAX_LANES, count) * LANE_WIDTH + 6;
}

/**
 * `topOf(index)`: the pixel top of row `index`; `onSelect(seq)`: a span was pressed.
 * @param {{ spans: CompactionSpan[], topOf: (index: number) => number, minHeight: number,
 *   onSelect: (seq: number) => void }} options
 */
export function spanButtons({ spans, topOf, minHeight, onSelect }) {
  return spans.map((span, order) => {
    const top = topOf(span.startSeq - 1);
    const bottom = topOf(span.endSeq);
    return h('button', {
      type: 'button',
      className: 'span',
      style: `top:${top}px;height:${Math.max(minHeight, bottom - top)}px;left:${(order % MAX_LANES) * LANE_WIDTH}px`,
      dataset: { seq: span.seq, startSeq: span.startSeq, endSeq: span.endSeq },
      title: `Compaction #${span.seq} ${compactionText(span)}`,
      'aria-label': `Compaction #${span.seq} ${compactionText(span)}: go to it`,
      onclick: () => onSelect(span.seq),
    });
  });
}
