/**
 * The library quick start runs offline: imported (its `main`) and as a script with tsx, as the
 * README tells users to run it.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../examples/library-quick-start.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('examples/library-quick-start.ts', () => {
  it('compacts during the turns and keeps the full history larger than the view', async () => {
    const lines: string[] = [];
    const result = await main({ log: (line) => lines.push(line) });
    expect(result.compactions).toBeGreaterThanOrEqual(1);
    expect(lines.filter((line) => /compaction \d+ \(token_threshold\)/.test(line))).toHaveLength(
      result.compactions,
    );
    expect(result.full.events).toBeGreaterThan(result.view.events);
    expect(result.full.tokens).toBeGreaterThan(result.view.tokens);
    // Every answer came from a tool result (the retained tail holds the latest one).
    const answers = lines.filter((line) => line.startsWith('  oncall: '));
    expect(answers).toHaveLength(8);
    for (const answer of answers) expect(answer).toMatch(/I read 40 log lines: \d+ errors\./);
  });

  it('runs as a script with tsx, with no key and no ORRERY_* settings', () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('ORRERY_') && !name.endsWith('_API_KEY')) {
        env[name] = value;
      }
    }
    const run = spawnSync(
      join(root, 'node_modules', '.bin', 'tsx'),
      [join(root, 'examples', 'library-quick-start.ts')],
      { cwd: root, env, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/compaction 1 \(token_threshold\): events seq 1-\d+ summarized/);
    const view = run.stdout.match(
      /view \(what the next request holds\): (\d+) events, ~(\d+) tokens/,
    );
    const full = run.stdout.match(/full history \(kept in storage\): +(\d+) events, ~(\d+) tokens/);
    expect(view).not.toBeNull();
    expect(full).not.toBeNull();
    expect(Number(full![1])).toBeGreaterThan(Number(view![1]));
    expect(Number(full![2])).toBeGreaterThan(Number(view![2]));
  });
});
