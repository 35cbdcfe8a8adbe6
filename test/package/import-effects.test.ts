/**
 * `sideEffects: false` holds: importing any entry point in a fresh process logs nothing, leaves
 * no timer or handle and adds no global.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as {
  exports: Record<string, string | { default: string }>;
};

/** Each package.json entry point as its source file (dist/x.js -> src/x.ts). */
const entryPoints = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === 'object')
  .map(([subpath, target]) => [
    subpath,
    (target as { default: string }).default
      .replace(/^\.\/dist\//, './src/')
      .replace(/\.js$/, '.ts'),
  ]);

// Runs in the child: watches output, globals and handles around one import.
const probe = `
const globalsBefore = new Set(Object.getOwnPropertyNames(globalThis));
const handlesBefore = process.getActiveResourcesInfo().length;
const written = [];
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream);
  stream.write = (chunk, ...rest) => { written.push(String(chunk)); return true; };
  stream.restore = write;
}
for (const method of ['log', 'info', 'warn', 'error', 'debug']) {
  console[method] = (...args) => written.push(args.join(' '));
}
await import(process.env.ENTRY);
await new Promise((resolve) => setImmediate(resolve));
const addedGlobals = Object.getOwnPropertyNames(globalThis).filter((name) => !globalsBefore.has(name));
const handles = process.getActiveResourcesInfo().slice(handlesBefore);
process.stdout.restore(JSON.stringify({ written, addedGlobals, handles }));
`;

/**
 * Globals the dependencies themselves set when loaded (zod's registry, LangChain's translator
 * registry, MikroORM's metadata store, which `@google/adk` loads for its database sessions):
 * not orrery's, and a bundler keeps them only if the dependency is used.
 */
const dependencyGlobals = /^(?:__zod_|lc_|mikro-orm-)/;

describe('importing an entry point has no side effects', () => {
  it.each(entryPoints)(
    '%s (%s)',
    async (_subpath, source) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '--eval', probe],
        { cwd: root, env: { ...process.env, ENTRY: source }, timeout: 60_000 },
      );
      const report = JSON.parse(stdout) as {
        written: string[];
        addedGlobals: string[];
        handles: string[];
      };
      const ownGlobals = report.addedGlobals.filter((name) => !dependencyGlobals.test(name));
      expect({ ...report, addedGlobals: ownGlobals }).toEqual({
        written: [],
        addedGlobals: [],
        handles: [],
      });
    },
    120_000,
  );
});
