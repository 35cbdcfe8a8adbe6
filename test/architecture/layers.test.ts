import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findLayerViolations, importSpecifiers, readSourceFiles } from './layer-rules.js';

const sourceRoot = fileURLToPath(new URL('../../src', import.meta.url));

describe('the layer rule', () => {
  it('holds on every shipped module under src/', () => {
    const files = readSourceFiles(sourceRoot);
    expect(files.length).toBeGreaterThan(100);
    expect(findLayerViolations(files)).toEqual([]);
  });

  it('flags an outer folder imported from an inner one', () => {
    const violations = findLayerViolations([
      {
        path: 'compaction/view.ts',
        text: "import type { Runner } from '../runtime/runner.js';\nimport { x } from './y.js';",
      },
    ]);
    expect(violations).toEqual([
      {
        file: 'compaction/view.ts',
        specifier: '../runtime/runner.js',
        rule: "'compaction' (rank 2) may not import 'runtime' (rank 5)",
      },
    ]);
  });

  it('flags a cycle between folders of one rank and I/O in the pure core', () => {
    const violations = findLayerViolations([
      { path: 'sessions/a.ts', text: "import { b } from '../models/b.js';" },
      { path: 'events/c.ts', text: "import { readFileSync } from 'node:fs';" },
      { path: 'runtime/d.ts', text: "export * from '../cli/main.js';" },
      { path: 'runtime/e.ts', text: "const m = await import('../server/x.js');" },
    ]);
    expect(violations.map((violation) => violation.specifier)).toEqual([
      '../models/b.js',
      'node:fs',
      '../cli/main.js',
      '../server/x.js',
    ]);
  });

  it('ignores tests and test helpers, which may reach anywhere', () => {
    const violations = findLayerViolations([
      { path: 'events/a.test.ts', text: "import { Runner } from '../runtime/runner.js';" },
      { path: 'events/test-helpers/b.ts', text: "import { c } from '../../cli/c.js';" },
    ]);
    expect(violations).toEqual([]);
  });

  it('reads every form of import statement', () => {
    const text = [
      "import type { A } from './a.js';",
      "import {\n  B,\n  C,\n} from '../b.js';",
      "export { D } from './d.js';",
      "import './side-effect.js';",
      "const e = await import('./e.js');",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([
      './a.js',
      '../b.js',
      './d.js',
      './side-effect.js',
      './e.js',
    ]);
  });
});
