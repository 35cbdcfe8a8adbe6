/**
 * Scratch folders for CLI tests, removed when the test file ends: each file that imports this
 * module (directly or through `run-cli.ts` / `in-process.ts`) gets one `afterAll` that deletes
 * every folder it made, so a run leaves nothing in the OS temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

// Registered at import: Vitest evaluates this module once per test file (forks, isolated).
afterAll(() => {
  for (const directory of created.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A new empty folder under the OS temp folder, deleted after the test file. */
export function makeTempDir(prefix = 'orrery-cli-'): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  created.push(directory);
  return directory;
}
