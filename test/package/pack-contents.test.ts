/**
 * What `npm pack` ships: no source maps (they pointed at src/ files the package does not
 * contain), and no compiled file that still names one.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the packed package', () => {
  it('packs as orrery-runtime with the orrery command, no source map and no sourceMappingURL', () => {
    // --ignore-scripts: list what `files` selects without rebuilding dist/ (prepack would).
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(pack.status, pack.stderr).toBe(0);
    const [manifest] = JSON.parse(pack.stdout) as [
      { name: string; filename: string; files: { path: string }[] },
    ];
    // The registry's `orrery` is another project's: published as orrery-runtime (free on
    // 2026-12-02: npm view orrery-runtime answered 404), the command stays `orrery`.
    expect(manifest.name).toBe('orrery-runtime');
    expect(manifest.filename).toMatch(/^orrery-runtime-\d+\.\d+\.\d+\.tgz$/);
    const files = manifest.files.map((file) => file.path);
    expect(files).toContain('dist/index.js');
    expect(files).toContain('bin/orrery.js');
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(packageJson.bin).toEqual({ orrery: './bin/orrery.js' });
    expect(files.filter((path) => path.endsWith('.map'))).toEqual([]);
    const naming = files
      .filter((path) => path.endsWith('.js'))
      .filter((path) => readFileSync(join(root, path), 'utf8').includes('//# sourceMappingURL='));
    expect(naming).toEqual([]);
  });
});
