/**
 * `orrery import` of a multi-run file (tau-bench) stores a session per run, each run read back
 * from its own bytes (docs/architecture.md#edge). All or nothing across the runs: when a later
 * run fails, the runs stored before it are deleted. The failure here: run 2's bytes change after
 * the first pass checked them, at the moment the second pass opens its first run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { writeTauBenchFile } from '../../bench/tau-bench-file.js';
import { cli, tempDir } from './in-process.js';

/** The file rewritten as `change` says when a stream from a byte offset first opens. */
const hook = vi.hoisted(() => ({
  change: undefined as undefined | { path: string; from: string; to: string },
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const createReadStream = ((...args: Parameters<typeof fs.createReadStream>) => {
    const [path, options] = args;
    const change = hook.change;
    if (change && path === change.path && typeof options === 'object' && options.start) {
      hook.change = undefined;
      const text = fs.readFileSync(change.path, 'utf8');
      fs.writeFileSync(change.path, text.replace(change.from, change.to));
    }
    return fs.createReadStream(...args);
  }) as typeof fs.createReadStream;
  return { ...fs, default: { ...fs, createReadStream }, createReadStream };
});

describe('orrery import: multi-run files', () => {
  it('stores a session per run', async () => {
    const directory = tempDir();
    const db = join(directory, 'o.db');
    const file = join(directory, 'runs.json');
    await writeTauBenchFile({ path: file, runs: 5 });
    const imported = await cli(['import', file, '--db', db, '--session', 'tau', '--json']);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    const summaries = JSON.parse(imported.stdout) as { sessionId: string; events: number }[];
    expect(summaries.map((summary) => summary.sessionId)).toEqual(
      [0, 1, 2, 3, 4].map((run) => `tau-run-${run}`),
    );
    expect(summaries.every((summary) => summary.events === 12)).toBe(true);
  });

  it('a later run failing removes the runs stored before it', async () => {
    const directory = tempDir();
    const db = join(directory, 'o.db');
    const file = join(directory, 'runs.json');
    await writeTauBenchFile({ path: file, runs: 4 });
    expect(readFileSync(file, 'utf8')).toContain('customer 2:');
    hook.change = { path: file, from: 'customer 2:', to: 'customer 7:' };
    const failed = await cli(['import', file, '--db', db, '--session', 'tau']);
    expect(hook.change).toBeUndefined();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("runs.json, [2]: the run's bytes");
    expect(failed.stderr).toContain('changed since the file was checked');
    const list = await cli(['sessions', 'list', '--db', db, '--json']);
    expect(JSON.parse(list.stdout)).toEqual([]);
    // The file as it is now imports whole.
    const again = await cli(['import', file, '--db', db, '--session', 'tau', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toHaveLength(4);
  });
});
