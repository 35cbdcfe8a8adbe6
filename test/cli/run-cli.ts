/**
 * Spawns the real CLI from source (`tsx src/cli/entry.ts`) in a scratch directory, so exit
 * codes, stdout and stderr are the process's own and the default store lands in that directory.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from './temp-dirs.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const entry = join(root, 'src', 'cli', 'entry.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A scratch folder, deleted after the test file (`temp-dirs.ts`). */
export function scratch(): string {
  return makeTempDir();
}

export function orrery(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): CliResult {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  const result = spawnSync(tsx, [entry, ...args], {
    cwd: options.cwd ?? scratch(),
    env: { ...env, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
