import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const limit = 500;
const codeFile = /\.(ts|tsx|js|mjs|cjs)$/;

function trackedCodeFiles(): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', 'src', 'assets', 'test', 'bench', 'scripts', 'examples'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  return listed.split('\n').filter((path) => codeFile.test(path));
}

function oversized(files: readonly { path: string; text: string }[]): string[] {
  return files
    .map(({ path, text }) => ({
      path,
      lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
    }))
    .filter(({ lines }) => lines > limit)
    .map(({ path, lines }) => `${path}: ${lines} lines`);
}

describe('file size', () => {
  it(`keeps every tracked source, test, bench and script file at ${limit} lines or fewer`, () => {
    const files = trackedCodeFiles().map((path) => ({
      path,
      text: readFileSync(`${root}/${path}`, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(500);
    expect(oversized(files)).toEqual([]);
  });

  it('flags a file over the limit and passes one at it', () => {
    const long = `${'x;\n'.repeat(limit + 1)}`;
    expect(
      oversized([
        { path: 'a.ts', text: long },
        { path: 'c.ts', text: 'x;\n'.repeat(limit) },
      ]),
    ).toEqual([`a.ts: ${limit + 1} lines`]);
  });
});
