/**
 * `orrery serve --exclusive` as a real process (from source): it serves sessions from its SQLite
 * file while holding the file's lock, so a second process cannot open the file meanwhile; after
 * it exits the file opens as usual. `--exclusive` with PostgreSQL is refused, naming the store.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { cli, tempDir } from './in-process.js';
import { serveEnv, startServe } from './serve-process.js';

const STARTUP_LINE = /^orrery serve: .* on (http:\/\/\S+),/m;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

describe('orrery serve --exclusive', () => {
  it('serves its SQLite file and holds its lock until it exits', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'store.db');
    const {
      child: started,
      line,
      exited,
    } = await startServe({
      args: ['serve', '--port', '0', '--exclusive', '--db', db],
      cwd,
      startupLine: STARTUP_LINE,
    });
    child = started;
    const url = line[1];

    const created = await fetch(`${url}/apps/orrery/users/ada/sessions/s1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: { plan: 'pro' } }),
    });
    expect(created.status).toBe(200);
    const read = await fetch(`${url}/apps/orrery/users/ada/sessions/s1`);
    expect(await read.json()).toMatchObject({ id: 's1', state: { plan: 'pro' } });

    // Another process's store cannot open the file while the server holds it.
    const other = new SqliteSessionService({ path: db });
    await expect(
      other.getSession({ appName: 'orrery', userId: 'ada', sessionId: 's1' }),
    ).rejects.toThrow(/lock|busy/i);
    await other.close();

    started.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    const after = new SqliteSessionService({ path: db });
    const session = await after.getSession({ appName: 'orrery', userId: 'ada', sessionId: 's1' });
    expect(session?.state).toEqual({ plan: 'pro' });
    await after.close();
  }, 120_000);

  it('refuses --exclusive with a PostgreSQL store, naming it', async () => {
    const result = await cli(
      ['serve', '--port', '0', '--exclusive', '--db', 'postgres://u:secret@127.0.0.1:1/x'],
      { env: serveEnv() },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--exclusive');
    expect(result.stderr).not.toContain('secret');
  }, 60_000);
});
