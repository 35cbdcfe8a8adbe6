/**
 * Aligned columns for terminal output: `alignedTable` (a header row, then rows; numbers
 * right-aligned) and `table` (replay's reports).
 */

export type Alignment = 'left' | 'right';

export function alignedTable(options: {
  headers: string[];
  rows: string[][];
  /** Per column; default left. */
  align?: Alignment[];
  indent?: string;
}): string[] {
  const { headers, rows, align = [], indent = '' } = options;
  const all = [headers, ...rows];
  const widths = headers.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  return all.map((row) =>
    `${indent}${row
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        if (align[column] === 'right') return cell.padStart(width);
        // The last left-aligned column is not padded: no trailing spaces.
        return column === row.length - 1 ? cell : cell.padEnd(width);
      })
      .join('  ')}`.trimEnd(),
  );
}

/**
 * Columns padded to their widest cell, joined by two spaces, the last cell unpadded; `headers`
 * empty: rows only (a two-column list of labels and values).
 */
export function table(headers: string[], rows: string[][], indent = ''): string[] {
  const all = headers.length > 0 ? [headers, ...rows] : rows;
  const widths: number[] = [];
  for (const row of all) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  const format = (row: string[]) =>
    `${indent}${row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ')}`.trimEnd();
  return all.map(format);
}
