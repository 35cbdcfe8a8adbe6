import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findImportCycles } from './import-cycles.js';
import { readSourceFiles } from './layer-rules.js';

const sourceRoot = fileURLToPath(new URL('../../src', import.meta.url));

describe('import circles', () => {
  it('there is none among the shipped modules under src/', () => {
    const files = readSourceFiles(sourceRoot);
    expect(files.length).toBeGreaterThan(100);
    expect(findImportCycles(files)).toEqual([]);
  });

  it('finds a circle through type imports and re-exports, named by one way round', () => {
    const cycles = findImportCycles([
      { path: 'compaction/types.ts', text: "import type { S } from './branch-view.js';" },
      { path: 'compaction/branch-view.ts', text: "export { v } from './view.js';" },
      { path: 'compaction/view.ts', text: "import { e } from './elision.js';" },
      { path: 'compaction/elision.ts', text: "import type { C } from './types.js';" },
      { path: 'compaction/config.ts', text: "import type { C } from './types.js';" },
    ]);
    expect(cycles).toEqual([
      'compaction/branch-view.ts -> compaction/view.ts -> compaction/elision.ts -> compaction/types.ts -> compaction/branch-view.ts',
    ]);
  });

  it('finds each circle once: across folders, through an index file, a module importing itself', () => {
    const cycles = findImportCycles([
      { path: 'cli/a.ts', text: "import { b } from './b.js';" },
      { path: 'cli/b.ts', text: "import { s } from '../server/index.js';" },
      { path: 'server/index.ts', text: "export * from './route.js';" },
      { path: 'server/route.ts', text: "const b = await import('../cli/b.js');" },
      { path: 'util/self.ts', text: "import { x } from './self.js';" },
      { path: 'util/pair-a.ts', text: "import { b } from './pair-b.js';" },
      { path: 'util/pair-b.ts', text: "import type { A } from './pair-a.js';" },
    ]);
    expect(cycles).toEqual([
      'cli/b.ts -> server/index.ts -> server/route.ts -> cli/b.ts',
      'util/pair-a.ts -> util/pair-b.ts -> util/pair-a.ts',
      'util/self.ts -> util/self.ts',
    ]);
  });

  it('ignores tests and test helpers, and finds none in a tree that only points one way', () => {
    expect(
      findImportCycles([
        { path: 'events/a.ts', text: "import { b } from './b.js';" },
        { path: 'events/b.ts', text: "import { c } from '../util/c.js';" },
        { path: 'util/c.ts', text: '' },
        { path: 'events/a.test.ts', text: "import { a } from './a.js';" },
        { path: 'events/test-helpers/h.ts', text: "import { a } from '../a.js';" },
      ]),
    ).toEqual([]);
  });
});
