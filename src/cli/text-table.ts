/** Aligned columns for terminal output: a header row, then rows; numbers right-aligned. */

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
