// @ts-check
/**
 * Where rows sit in the virtualized timeline: every row is `rowHeight` tall, an expanded one
 * `expandedHeight` more. Pure, so the timeline's scrolling arithmetic is testable on its own.
 */

/**
 * The top pixel of row `index`.
 * @param {{ index: number, expandedSorted: number[], rowHeight: number, expandedHeight: number }} options
 */
export function rowTop({ index, expandedSorted, rowHeight, expandedHeight }) {
  let before = 0;
  for (const expandedIndex of expandedSorted) {
    if (expandedIndex >= index) break;
    before++;
  }
  return index * rowHeight + before * expandedHeight;
}

/**
 * The row under pixel `y`, clamped to the rows there are.
 * @param {{ y: number, rowCount: number, expandedSorted: number[], rowHeight: number, expandedHeight: number }} options
 */
export function rowIndexAt({ y, rowCount, expandedSorted, rowHeight, expandedHeight }) {
  let before = 0;
  for (const expandedIndex of expandedSorted) {
    const top = expandedIndex * rowHeight + before * expandedHeight;
    if (y < top) break;
    if (y < top + rowHeight + expandedHeight) return expandedIndex;
    before++;
  }
  const index = Math.floor((y - before * expandedHeight) / rowHeight);
  return Math.max(0, Math.min(rowCount - 1, index));
}
