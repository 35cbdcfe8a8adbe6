/** `orrery ... | head`: a reader that stops early ends the command quietly. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, scratch } from './run-cli.js';

describe('stdout closed early', () => {
  it('ends without a stack trace', async () => {
    const child = spawn(
      join(root, 'node_modules', '.bin', 'tsx'),
      [
        join(root, 'src', 'cli', 'entry.ts'),
        'replay',
        join(root, 'examples', 'incident-session.jsonl'),
      ],
      { cwd: scratch(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // The reader goes away before the first write, like `head -0`.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 60_000);
});
