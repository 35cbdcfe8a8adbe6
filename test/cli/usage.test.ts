/** Usage errors: one line, exit 2; help and version asked for: exit 0. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';
import { root } from './run-cli.js';

describe('usage', () => {
  it('reports a bad command line in one line with exit code 2', async () => {
    const cases: Array<[string[], string]> = [
      [['improt', 'x'], "orrery: unknown command 'improt' (Did you mean import?) (see --help)"],
      [['import', 'x', '--bogus'], "orrery: unknown option '--bogus' (see --help)"],
      [['import'], "orrery: missing required argument 'file' (see --help)"],
      [
        ['replay', 'x', '--threshold'],
        "orrery: option '--threshold <tokens>' argument missing (see --help)",
      ],
      [
        ['replay', 'x', '--threshold', 'abc'],
        'orrery: CliUsageError: --threshold must be an integer >= 0, got "abc"',
      ],
      [
        ['view', 'x', '--width', 'wide'],
        'orrery: CliUsageError: --width must be an integer >= 10, got "wide"',
      ],
      [
        ['sessions', 'show', 'x', '--width', '-1'],
        'orrery: CliUsageError: --width must be an integer >= 10, got "-1"',
      ],
      [
        ['run', '--session', 'x', '  '],
        'orrery: CliUsageError: the message is empty: pass the text to send, e.g. orrery run "What changed?"',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stderr: `${message}\n`,
      });
      expect(result.stdout).toBe('');
    }
  });

  it('exits 2 when a command needs a subcommand and got none', async () => {
    for (const args of [[], ['sessions']]) {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Usage: orrery');
    }
  });

  it('prints help and the version on stdout with exit code 0', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const flag of ['--version', '-V']) {
      expect(await cli([flag])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    }
    for (const args of [['--help'], ['help', 'import'], ['sessions', 'list', '--help']]) {
      const result = await cli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Usage: orrery');
      expect(result.stderr).toBe('');
    }
  });
});
