/**
 * Start-up: CPU time (user + system, measured inside the process at exit) of the built CLI,
 * `node bin/orrery.js`, for `--help`, the replay of a two-message transcript and of the incident
 * example (start-up plus a real replay), median of seven runs, beside a bare `node` start. Run
 * `npm run build` first: `bin/orrery.js` runs `dist/`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './workload.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const probe = join(root, 'bench', 'cpu-at-exit.mjs');
const runs = 7;

/** CPU milliseconds of one `node` process running `args`. */
function cpuMs(args: string[]): number {
  const result = spawnSync(process.execPath, ['--import', probe, ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  const match = /orrery-bench-cpu-ms ([\d.]+)/.exec(result.stderr);
  if (!match?.[1]) throw new Error(`no CPU figure from node ${args.join(' ')}: ${result.stderr}`);
  return Number(match[1]);
}

export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'orrery-startup-'));
  try {
    const transcript = join(directory, 'chat.json');
    writeFileSync(
      transcript,
      JSON.stringify([
        { role: 'user', content: 'Is the deploy done?' },
        { role: 'assistant', content: 'Yes, at 14:05.' },
      ]),
    );
    const cases: Array<[string, string[]]> = [
      ['node -e 0 (floor)', ['-e', '0']],
      ['orrery --help', ['bin/orrery.js', '--help']],
      ['orrery replay (2 messages) --json', ['bin/orrery.js', 'replay', transcript, '--json']],
      [
        'orrery replay examples/incident-session.jsonl (308 events)',
        ['bin/orrery.js', 'replay', 'examples/incident-session.jsonl'],
      ],
    ];
    const rows = ['| command | median CPU ms (7 runs) |', '|---|---:|'];
    for (const [label, args] of cases) {
      const samples = Array.from({ length: runs }, () => cpuMs(args));
      rows.push(`| ${label} | ${Math.round(median(samples))} |`);
    }
    console.log(rows.join('\n'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
