import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildApiReport, ENTRY_POINTS, REPORT_PATH } from '../../scripts/api-report.js';

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

  it('matches api/orrery.api.md (after a deliberate change: npm run api:update)', () => {
    const committed = readFileSync(REPORT_PATH, 'utf8');
    expect(buildApiReport()).toBe(committed);
  }, 120_000);
});
