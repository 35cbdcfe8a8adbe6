// @ts-check
/**
 * Moving between timeline rows from the keyboard: the arrow keys go one row, Page Up and Page
 * Down a screenful, Home and End to the first and last row (rows not drawn yet included).
 */

/**
 * The row index `key` moves to from row `index`, or `null` when the key is not a move.
 * @param {{ key: string, index: number, rowCount: number, rowsPerScreen: number }} options
 * @returns {number | null}
 */
export function rowAfterKey({ key, index, rowCount, rowsPerScreen }) {
  const screen = Math.max(1, rowsPerScreen - 1);
  const moves = new Map([
    ['ArrowDown', index + 1],
    ['ArrowUp', index - 1],
    ['PageDown', index + screen],
    ['PageUp', index - screen],
    ['Home', 0],
    ['End', rowCount - 1],
  ]);
  const target = moves.get(key);
  if (target === undefined || rowCount === 0) return null;
  return Math.max(0, Math.min(rowCount - 1, target));
}
