import { readFileSync } from 'node:fs';
import type ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  buildApiReport,
  createApiProgram,
  ENTRY_POINTS,
  REPORT_PATH,
} from '../../scripts/api-report.js';
import { declaredExports } from '../../scripts/count-exports.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { exports: Record<string, { types?: string } | string> };

describe('the public API report', () => {
  // One TypeScript program over every entry point for both checks below (building it is most of
  // this file's time; both read it only).
  let program: ts.Program | undefined;
  const apiProgram = (): ts.Program => {
    program ??= createApiProgram();
    return program;
  };

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
      { program: apiProgram() },
    );
    expect(values.length + types.length).toBeLessThanOrEqual(200);
    expect(values).toContain('Runner');
  }, 120_000);

  it('matches api/orrery.api.md (after a deliberate change: npm run api:update)', () => {
    const committed = readFileSync(REPORT_PATH, 'utf8').split('\n');
    const built = buildApiReport({ program: apiProgram() }).split('\n');
    // Only the lines that differ, so a failure shows what changed.
    const differing = built
      .map((line, index) => ({ line: index + 1, built: line, committed: committed[index] }))
      .filter((entry) => entry.built !== entry.committed);
    expect(differing.slice(0, 10)).toEqual([]);
    expect(built.length).toBe(committed.length);
  }, 120_000);
});
