/**
 * What a user's bundler pulls in: `import { estimateTextTokens } from 'orrery'` must tree-shake
 * to a few kB (`sideEffects: false` and import-time-free modules), and `orrery/testing` must not
 * need vitest (the conformance suite lives at `orrery/testing/conformance`).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function bundle(contents: string) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    minify: true,
    treeShaking: true,
    format: 'esm',
    platform: 'node',
    metafile: true,
    // Third-party packages are the user's: only what orrery itself adds is measured.
    packages: 'external',
    logLevel: 'silent',
  });
  const output = result.outputFiles[0]!;
  // The packages the bundle still imports (after tree-shaking).
  const imports = Object.values(result.metafile.outputs).flatMap((bundled) =>
    bundled.imports.map((entry) => entry.path),
  );
  return { bytes: output.contents.byteLength, imports };
}

describe('bundle size', () => {
  it("import { estimateTextTokens } from 'orrery' tree-shakes to under 10 kB", async () => {
    const { bytes, imports } = await bundle(
      "import { estimateTextTokens } from './src/index.ts'; console.log(estimateTextTokens('hi'));",
    );
    // The source of orrery (its package.json's `sideEffects: false` applies to it).
    expect(bytes).toBeLessThan(10_000);
    // Nothing heavy survives: no store driver, provider SDK, logger or metrics client.
    for (const heavy of ['pino', 'prom-client', 'ai', 'better-sqlite3', 'pg', 'zod']) {
      expect(imports).not.toContain(heavy);
    }
  });

  it('orrery/testing imports no vitest; orrery/testing/conformance does', async () => {
    const testing = await bundle("export * from './src/testing/index.ts';");
    expect(testing.imports).not.toContain('vitest');
    const conformance = await bundle("export * from './src/testing/conformance/index.ts';");
    expect(conformance.imports).toContain('vitest');
  });
});
