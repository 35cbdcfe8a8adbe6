/**
 * The inspector page's files, read as text: every module is preloaded by index.html (so none
 * waits for the one importing it), none writes markup from strings (event content is only ever
 * a text node), and nothing is fetched from another host (the page works offline).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './chromium.js';

const FOLDER = join(ROOT, 'assets', 'inspector');
const files = readdirSync(FOLDER).sort();
const read = (name: string) => readFileSync(join(FOLDER, name), 'utf8');
const modules = files.filter((name) => name.endsWith('.js'));

describe('the inspector page files', () => {
  it('are split into small modules, each preloaded by index.html', () => {
    expect(modules.length).toBeGreaterThanOrEqual(8);
    const html = read('index.html');
    expect(html).toContain('<script type="module" src="/inspector/app.js"></script>');
    const preloaded = [
      ...html.matchAll(/<link rel="modulepreload" href="\/inspector\/([\w-]+\.js)">/g),
    ]
      .map((match) => match[1])
      .sort();
    expect(preloaded).toEqual(modules.filter((name) => name !== 'app.js'));
    for (const name of files) expect(read(name).split('\n').length).toBeLessThan(500);
  });

  it('are type-checked strictly: each opts in with // @ts-check (npm run typecheck: assets/tsconfig.json)', () => {
    for (const name of modules) expect(read(name).startsWith('// @ts-check\n'), name).toBe(true);
    const config = JSON.parse(readFileSync(join(ROOT, 'assets', 'tsconfig.json'), 'utf8'));
    // As strict as the library's: no parameter is an implicit `any`.
    expect(config.compilerOptions).toMatchObject({
      checkJs: true,
      noEmit: true,
      strict: true,
      noUncheckedIndexedAccess: true,
    });
    expect(config.compilerOptions).not.toHaveProperty('noImplicitAny');
    expect(config.compilerOptions.lib).toContain('DOM');
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.typecheck).toContain('tsc -p assets/tsconfig.json');
  });

  it('never build markup from strings', () => {
    for (const name of modules) {
      // Code only: comments may name what the code avoids.
      const source = read(name)
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|\s)\/\/.*$/gm, '$1');
      expect(source, name).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
      );
    }
  });

  it('load nothing from another host', () => {
    for (const name of files) {
      const urls = read(name).match(/(?:https?:)?\/\/[\w.-]+\.[a-z]{2,}[^\s"'`)]*/g) ?? [];
      // The SVG namespace is a name, never fetched.
      expect(
        urls.filter((url) => url !== 'http://www.w3.org/2000/svg'),
        name,
      ).toEqual([]);
    }
  });
});
