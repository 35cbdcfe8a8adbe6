import { describe, expect, it } from 'vitest';
import { edgeAllowed, importEdges } from '../../scripts/import-graph.js';

describe('the import graph script', () => {
  it('counts import statements per pair of top-level folders, in layer order', () => {
    const edges = importEdges(
      [
        {
          path: 'runtime/a.ts',
          text: "import { x } from '../events/x.js';\nimport type { Y } from '../events/y.js';\nimport { z } from './z.js';",
        },
        { path: 'runtime/b.ts', text: "export { c } from '../compaction/c.js';" },
        { path: 'observability/d.ts', text: "import type { R } from '../runtime/r.js';" },
        { path: 'runtime/e.test.ts', text: "import { f } from '../cli/f.js';" },
      ],
      { tests: false },
    );
    expect(edges).toEqual([
      { from: 'runtime', to: 'compaction', imports: 1 },
      { from: 'runtime', to: 'events', imports: 2 },
      { from: 'observability', to: 'runtime', imports: 1 },
    ]);
    expect(edges.map(edgeAllowed)).toEqual([true, true, false]);
  });

  it('counts tests too when asked', () => {
    const edges = importEdges(
      [{ path: 'runtime/e.test.ts', text: "import { f } from '../cli/f.js';" }],
      { tests: true },
    );
    expect(edges).toEqual([{ from: 'runtime', to: 'cli', imports: 1 }]);
  });
});
