import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildApiReport, ENTRY_POINTS, REPORT_PATH } from '../../scripts/api-report.js';
import { declaredExports } from '../../scripts/count-exports.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { exports: Record<string, { types?: string } | string> };

describe('the public API report', () => {
  it('covers every subpath package.json exports', () => {
    const subpaths = Object.keys(packageJson.exports)
      .filter((subpath) => subpath !== './package.json')
      .map((subpath) => (subpath === '.' ? 'orrery' : `orrery/${subpath.slice(2)}`))
      .sort();
    expect(Object.keys(ENTRY_POINTS).sort()).toEqual(subpaths);
  });

  it('keeps the root entry point to at most 200 names (the rest live behind subpaths)', () => {
    const { values, types } = declaredExports(
      new URL('../../src/index.ts', import.meta.url).pathname,
    );
    expect(values.length + types.length).toBeLessThanOrEqual(200);
    expect(values).toContain('Runner');
  }, 60_000);

  it('matches api/orrery.api.md (after a deliberate change: npm run api:update)', () => {
    const committed = readFileSync(REPORT_PATH, 'utf8');
    expect(buildApiReport()).toBe(committed);
  }, 120_000);
});
