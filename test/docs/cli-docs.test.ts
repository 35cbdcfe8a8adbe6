/**
 * docs/cli.md documents every command and every option of the `orrery` program, each command
 * with an example that uses every one of its options: read from the program itself, so a new
 * option without documentation fails here.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/main.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');

interface Documented {
  path: string;
  flags: string[];
}

async function commands(): Promise<Documented[]> {
  const program = await createProgram({ io: { stdout: () => {}, stderr: () => {} } as never });
  const found: Documented[] = [];
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const subPath = [...path, sub.name()];
      if (sub.commands.length > 0) walk(sub, subPath);
      else
        found.push({
          path: subPath.join(' '),
          flags: sub.options.map((option) => option.long ?? option.flags),
        });
    }
  };
  walk(program, []);
  return found;
}

/** The `### \`orrery PATH\`` section of the page, up to the next heading of its level or above. */
function section(path: string): string | undefined {
  const heading = `### \`orrery ${path}\``;
  const start = page.indexOf(`${heading}\n`);
  if (start < 0) return undefined;
  const rest = page.slice(start + heading.length);
  const end = rest.search(/\n#{1,3} /);
  return end < 0 ? rest : rest.slice(0, end);
}

describe('docs/cli.md', () => {
  it('has a section for every command, listing and exemplifying every option', async () => {
    const all = await commands();
    expect(all.map((command) => command.path)).toEqual(
      expect.arrayContaining(['chat', 'run', 'sessions list', 'eval', 'serve', 'inspect']),
    );
    const missing: string[] = [];
    for (const { path, flags } of all) {
      const text = section(path);
      if (text === undefined) {
        missing.push(`no section ### \`orrery ${path}\``);
        continue;
      }
      const examples = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
        .map((block) => block[1])
        .join('\n');
      const lines = examples.split('\n');
      if (!lines.some((line) => new RegExp(`(^|\\s)orrery ${path}( |$)`).test(line))) {
        missing.push(`orrery ${path}: no example`);
      }
      for (const flag of flags) {
        if (!text.includes(`\`${flag}`)) missing.push(`orrery ${path}: ${flag} not listed`);
        if (!examples.includes(flag)) missing.push(`orrery ${path}: ${flag} in no example`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents run --session as optional', () => {
    expect(page).toContain('run [--session ID]');
    expect(page).not.toContain('run --session ID [');
  });
});
