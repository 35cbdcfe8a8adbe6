/**
 * Reads the project's Markdown the way the docs tests check it: fenced code blocks (with the
 * hidden prelude a page may put before one), relative links, and the anchors GitHub gives
 * headings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  code: string;
  /**
   * Declarations the block relies on but does not show (`<!-- snippet-prelude ... -->` just
   * before the fence), so a fragment such as `for await (const event of runner.run(...))`
   * type-checks against the real API without cluttering the page.
   */
  prelude: string;
}

export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** README.md and every `docs/*.md`, as paths relative to `root`. */
export function markdownFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(\w*)\s*$/.exec(lines[index] ?? '');
    if (!open) continue;
    const indent = open[1] ?? '';
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^ *```\s*$/.test(lines[index] ?? ''); index++) {
      const text = lines[index] ?? '';
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text);
    }
    const before = lines.slice(Math.max(0, start - 40), start).join('\n');
    blocks.push({
      file,
      line: start + 1,
      language: open[2] ?? '',
      code: body.join('\n'),
      prelude: preludeAtEnd(before),
    });
  }
  return blocks;
}

/** The `<!-- snippet-prelude ... -->` comment that ends `text` (only blank lines after it). */
function preludeAtEnd(text: string): string {
  const start = text.lastIndexOf('<!-- snippet-prelude');
  if (start < 0) return '';
  const end = text.indexOf('-->', start);
  if (end < 0 || text.slice(end + 3).trim() !== '') return '';
  return text.slice(start + '<!-- snippet-prelude'.length, end).trim();
}

/** Links to files of the repository (not `http:`, `https:` or `mailto:`), outside code. */
export function relativeLinks(root: string, file: string): MarkdownLink[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const links: MarkdownLink[] = [];
  let fenced = false;
  lines.forEach((text, index) => {
    if (/^ *```/.test(text)) fenced = !fenced;
    if (fenced) return;
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^(https?:|mailto:)/.test(target)) continue;
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** The anchors GitHub makes of a page's headings (`## Already on LangChain.js?` ->
 * `already-on-langchainjs`), repeats suffixed `-1`, `-2`. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const text of markdown.split('\n')) {
    if (/^ *```/.test(text)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(text);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
