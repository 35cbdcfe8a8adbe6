/**
 * The import graph between the top-level folders of `src/` (docs/architecture.md#layers): one
 * line per edge `from -> to` with how many import statements make it, and whether the layer rule
 * allows it. Reads the import statements with the layer check's own parser
 * (`test/architecture/layer-rules.ts`), so the graph and the check agree.
 *
 *   npx tsx scripts/import-graph.ts                     # this checkout's src/
 *   npx tsx scripts/import-graph.ts --root /other/src   # another tree (e.g. a git worktree)
 *   npx tsx scripts/import-graph.ts --tests             # tests and test helpers counted too
 *   npx tsx scripts/import-graph.ts --json              # { edges: [{ from, to, imports }] }
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  folderOf,
  isTestCode,
  LAYER_RANKS,
  readSourceFiles,
  relativeImports,
  type SourceFile,
} from '../test/architecture/layer-rules.js';

export interface ImportEdge {
  from: string;
  to: string;
  /** Import statements from a module of `from` to a module of `to`. */
  imports: number;
}

/** Edges between different top-level folders, in layer order (then by name). */
export function importEdges(files: SourceFile[], options: { tests: boolean }): ImportEdge[] {
  const counts = new Map<string, ImportEdge>();
  for (const file of files) {
    if (!options.tests && isTestCode(file.path)) continue;
    const from = folderOf(file.path);
    for (const { target } of relativeImports(file)) {
      const to = target.startsWith('..') ? '(outside src)' : folderOf(target);
      if (to === from) continue;
      const key = `${from}\u0000${to}`;
      const edge = counts.get(key) ?? { from, to, imports: 0 };
      edge.imports += 1;
      counts.set(key, edge);
    }
  }
  const rank = (folder: string) => LAYER_RANKS[folder] ?? Number.POSITIVE_INFINITY;
  return [...counts.values()].sort(
    (left, right) =>
      rank(right.from) - rank(left.from) ||
      left.from.localeCompare(right.from) ||
      rank(right.to) - rank(left.to) ||
      left.to.localeCompare(right.to),
  );
}

/** Whether the layer rule allows the edge (a lower rank, and both folders ranked). */
export function edgeAllowed(edge: ImportEdge): boolean {
  const fromRank = LAYER_RANKS[edge.from];
  const toRank = LAYER_RANKS[edge.to];
  return fromRank !== undefined && toRank !== undefined && toRank < fromRank;
}

function formatEdges(edges: ImportEdge[]): string {
  const width = Math.max(...edges.map((edge) => `${edge.from} -> ${edge.to}`.length), 0);
  const lines = edges.map((edge) => {
    const name = `${edge.from} -> ${edge.to}`.padEnd(width);
    const note = edgeAllowed(edge) ? '' : '  against the layer rule';
    return `${name}  ${String(edge.imports).padStart(4)}${note}`;
  });
  const total = edges.reduce((sum, edge) => sum + edge.imports, 0);
  const against = edges.filter((edge) => !edgeAllowed(edge)).length;
  lines.push(`${edges.length} edges, ${total} imports, ${against} against the layer rule`);
  return lines.join('\n');
}

function main(): void {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      tests: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const root = values.root ?? fileURLToPath(new URL('../src', import.meta.url));
  const edges = importEdges(readSourceFiles(root), { tests: values.tests });
  process.stdout.write(
    values.json ? `${JSON.stringify({ root, edges }, null, 2)}\n` : `${formatEdges(edges)}\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
