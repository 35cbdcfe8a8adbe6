/**
 * `orrery serve` as a real process (from source): its startup line names the inspector's URL,
 * and that URL serves the inspector page and its API. The model is never called.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './in-process.js';
import { startServe } from './serve-process.js';

const STARTUP_LINE = /^orrery serve: .* on (http:\/\/\S+), .*; inspector: (http:\/\/\S+)\n/m;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

describe('orrery serve', () => {
  it('prints the inspector URL in its startup line, and serves the inspector there', async () => {
    const cwd = tempDir();
    const {
      child: started,
      line,
      exited,
    } = await startServe({
      args: ['serve', '--port', '0', '--db', join(cwd, 'store.db')],
      cwd,
      startupLine: STARTUP_LINE,
    });
    child = started;
    const [, url, inspector] = line;
    expect(inspector).toBe(`${url}/`);

    const page = await fetch(inspector!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>orrery inspector</title>');
    const sessions = await fetch(`${inspector}inspector/api/sessions`);
    expect(sessions.status).toBe(200);
    expect(await sessions.json()).toMatchObject({ sessions: [] });

    started.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
