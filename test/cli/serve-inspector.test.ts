/**
 * `orrery serve` as a real process (from source): its startup line names the inspector's URL,
 * and that URL serves the inspector page and its API. The model is never called.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './in-process.js';
import { root } from './run-cli.js';

const entry = join(root, 'src', 'cli', 'entry.ts');
/** tsx's loader by path: the scratch directory has no node_modules to find it in. */
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const STARTUP_LINE = /^orrery serve: .* on (http:\/\/\S+), .*; inspector: (http:\/\/\S+)\n/m;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

function serveEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  // A model id the CLI accepts; nothing here runs the agent, so nothing listens there.
  return {
    ...env,
    ORRERY_MODEL: 'openai-compatible:test-model',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1',
  };
}

describe('orrery serve', () => {
  it('prints the inspector URL in its startup line, and serves the inspector there', async () => {
    const cwd = tempDir();
    const started = spawn(
      process.execPath,
      ['--import', tsxLoader, entry, 'serve', '--port', '0', '--db', join(cwd, 'store.db')],
      { cwd, env: serveEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    let stderr = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('close', (code, signal) => resolve({ code, signal })),
    );
    const line = await new Promise<RegExpExecArray>((resolve, reject) => {
      started.stderr?.on('data', (chunk) => {
        stderr += String(chunk);
        const match = STARTUP_LINE.exec(stderr);
        if (match) resolve(match);
      });
      void exited.then(({ code }) =>
        reject(new Error(`orrery serve exited (${code}) before its startup line: ${stderr}`)),
      );
    });
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
