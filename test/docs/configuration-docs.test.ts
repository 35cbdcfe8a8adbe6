/**
 * docs/configuration.md lists every `ORRERY_*` environment variable the code reads (src/,
 * bench/, scripts/), each in a row of its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `ORRERY_X` as the code names a variable: `env.ORRERY_X`, `env['ORRERY_X']` or `'ORRERY_X'`. */
function variablesRead(source: string): string[] {
  const pattern = /(?:env\.|['"`])(ORRERY_[A-Z0-9_]*[A-Z0-9])\b(?!_)/g;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? '');
}

function sources(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.test.ts'))
    .map((name) => join(root, folder, name));
}

describe('docs/configuration.md', () => {
  it('has a row for every ORRERY_* variable the code reads', () => {
    const read = new Set<string>();
    for (const file of ['src', 'bench', 'scripts'].flatMap(sources)) {
      for (const name of variablesRead(readFileSync(file, 'utf8'))) read.add(name);
    }
    expect(read.size).toBeGreaterThan(30);
    const page = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    const rows = new Set(
      [...page.matchAll(/^\| `(ORRERY_[A-Z0-9_]+)`/gm)].map((match) => match[1] ?? ''),
    );
    expect([...read].filter((name) => !rows.has(name)).sort()).toEqual([]);
  });

  it('finds a variable however the code names it, and not a prefix or a constant', () => {
    expect(
      variablesRead(
        "env.ORRERY_A; env['ORRERY_B']; `ORRERY_C`; const ORRERY_METADATA_KEY = 1; 'ORRERY_SERVE_'",
      ),
    ).toEqual(['ORRERY_A', 'ORRERY_B', 'ORRERY_C']);
  });
});
