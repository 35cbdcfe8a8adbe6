/**
 * The README is a front page and the docs hold the rest: the README stays under 20,000 bytes,
 * every relative link in it and in docs/ resolves (file and heading), and every TypeScript
 * snippet type-checks against the package as users import it (`orrery`, `orrery/sqlite`, ...:
 * the package's own `exports`, so `npm run build` first, as for the CLI tests).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  type CodeBlock,
  codeBlocks,
  headingAnchors,
  markdownFiles,
  relativeLinks,
} from './markdown.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const files = markdownFiles(root);

describe('README and docs/', () => {
  it('README.md is a front page: at most 20,000 bytes', () => {
    expect(readFileSync(join(root, 'README.md')).byteLength).toBeLessThanOrEqual(20_000);
  });

  it('the pages the README promises exist and the README links each', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const page of [
      'library',
      'cli',
      'server',
      'inspector',
      'recall',
      'configuration',
      'privacy',
      'observability',
      'importers',
      'benchmarks',
      'adapters',
    ]) {
      expect(existsSync(join(root, 'docs', `${page}.md`)), `docs/${page}.md`).toBe(true);
      expect(readme, `README links docs/${page}.md`).toContain(`](docs/${page}.md`);
    }
  });

  it('every source path the docs name exists (files move; the map must follow)', () => {
    const stale: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /(?<![\w/.-])((?:src|test|bench|scripts)\/[\w/.-]+\.(?:ts|js))\b/g,
      )) {
        const path = match[1] ?? '';
        checked++;
        if (!existsSync(join(root, path))) stale.push(`${relative(root, file)}: ${path}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(stale).toEqual([]);
  });

  it('every relative link resolves to a file and, with #, to a heading there', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const link of relativeLinks(root, file)) {
        checked++;
        const [path = '', anchor] = link.target.split('#');
        const target = path === '' ? join(root, file) : resolve(root, dirname(file), path);
        const where = `${link.file}:${link.line} -> ${link.target}`;
        if (!existsSync(target)) {
          broken.push(`${where}: no file ${relative(root, target)}`);
          continue;
        }
        if (anchor === undefined || !target.endsWith('.md')) continue;
        if (!headingAnchors(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${where}: no heading #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('the link checker finds a missing file and a missing heading', () => {
    expect(
      headingAnchors('# Title\n## Already on LangChain.js? Add these lines\n## A\n## A'),
    ).toEqual(new Set(['title', 'already-on-langchainjs-add-these-lines', 'a', 'a-1']));
    expect(headingAnchors('```sh\n# not a heading\n```\n')).toEqual(new Set());
  });

  it('every TypeScript snippet type-checks against the package', () => {
    const snippets = files.flatMap((file) =>
      codeBlocks(root, file).filter((block) => ['ts', 'typescript'].includes(block.language)),
    );
    expect(snippets.length).toBeGreaterThan(20);
    expect(typeErrors(snippets)).toEqual([]);
  }, 240_000);

  it('a snippet that does not type-check is reported at its page and line', () => {
    const wrong: CodeBlock = {
      file: 'docs/x.md',
      line: 10,
      language: 'ts',
      prelude: 'declare const count: number;',
      code: "import { createEventsCompactionConfig } from 'orrery';\nconst text: string = count;\ncreateEventsCompactionConfig();",
    };
    const errors = typeErrors([wrong]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^docs\/x\.md:12: TS2322/);
  }, 240_000);
});

/**
 * `orrery`, `orrery/sqlite`, ... as the docs import them: the package is published as
 * `orrery-runtime` and installed under the name `orrery` (`npm install orrery@npm:orrery-runtime`),
 * so each name maps to the types its `exports` entry ships in dist/.
 */
function importNames(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string' || target.types === undefined) continue;
    paths[`orrery${subpath.slice(1)}`] = [join(root, target.types)];
  }
  return paths;
}

/** Type-checks the snippets as modules of the package (one program), `file:line: TSnnnn ...`. */
function typeErrors(snippets: CodeBlock[]): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  options.noEmit = true;
  options.paths = importNames();
  const virtual = new Map<string, { block: CodeBlock; offset: number; text: string }>();
  snippets.forEach((block, index) => {
    const name = join(root, '.docs-snippets', `${index}-${block.file.replace(/\W/g, '-')}.ts`);
    const head = block.prelude === '' ? '' : `${block.prelude}\n`;
    const text = `${head}${block.code}\nexport {};\n`;
    virtual.set(name, { block, offset: head.split('\n').length - 1, text });
  });
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, ...rest) => {
    const snippet = virtual.get(resolve(fileName));
    if (snippet) return ts.createSourceFile(fileName, snippet.text, language);
    return getSourceFile(fileName, language, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtual.has(resolve(fileName)) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtual.get(resolve(fileName))?.text ?? readFile(fileName);
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const errors: string[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const snippet = diagnostic.file && virtual.get(resolve(diagnostic.file.fileName));
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    if (!snippet || diagnostic.start === undefined) {
      errors.push(`(outside a snippet) TS${diagnostic.code}: ${message}`);
      continue;
    }
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
    const inBlock = line - snippet.offset;
    const where = inBlock < 0 ? 'its prelude' : String(snippet.block.line + 1 + inBlock);
    errors.push(`${snippet.block.file}:${where}: TS${diagnostic.code}: ${message}`);
  }
  return errors;
}
