/**
 * `orrery inspect` as a real process (from source): it prints its URL and nothing else, serves
 * the inspector over the store it opened read-only, and exits 0 on SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';
import { orrery, root } from './run-cli.js';

const entry = join(root, 'src', 'cli', 'entry.ts');
/** tsx's loader by path: the scratch directory has no node_modules to find it in. */
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

interface InspectProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let running: InspectProcess | undefined;
afterEach(() => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  running = undefined;
});

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  return env;
}

/** Spawns `orrery inspect ARGS` and waits for its URL line on stdout. */
function startInspect(args: string[], cwd: string): Promise<InspectProcess> {
  const child = spawn(process.execPath, ['--import', tsxLoader, entry, 'inspect', ...args], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += String(chunk);
      const url = /^orrery inspector: (http:\/\/\S+\/)\n/.exec(stdout)?.[1];
      if (url) {
        resolve({ child, url, stdout: () => stdout, stderr: () => stderr, exited });
      }
    });
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    void exited.then(({ code }) =>
      reject(new Error(`orrery inspect exited (${code}) before its URL: ${stderr}`)),
    );
  });
}

describe('orrery inspect', () => {
  it('prints its URL, serves the inspector over the store, refuses writes, exits 0 on SIGTERM', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'store.db');
    const imported = await cli([
      'import',
      join(root, 'examples', 'incident-session.jsonl'),
      '--db',
      db,
      '--user',
      'alice',
    ]);
    expect(imported.code, imported.stderr).toBe(0);

    running = await startInspect(['--db', db, '--port', '0'], cwd);
    const { url } = running;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    expect(await (await fetch(`${url}healthz`)).json()).toEqual({ status: 'ok' });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');

    const listed = (await (await fetch(`${url}inspector/api/sessions`)).json()) as {
      sessions: Array<{ appName: string; userId: string; sessionId: string; eventCount: number }>;
    };
    expect(listed.sessions).toHaveLength(1);
    const session = listed.sessions[0]!;
    expect(session).toMatchObject({ appName: 'orrery', userId: 'alice' });
    expect(session.eventCount).toBeGreaterThan(10);

    const base = `${url}inspector/api/apps/orrery/users/alice/sessions/${session.sessionId}`;
    const timeline = (await (await fetch(`${base}/timeline?limit=5`)).json()) as {
      events: unknown[];
      eventCount: number;
    };
    expect(timeline.events).toHaveLength(5);
    expect(timeline.eventCount).toBe(session.eventCount);

    // The page offers no chat box here, and says why.
    const info = (await (await fetch(`${url}inspector/api/info`)).json()) as {
      canRun: boolean;
      readOnlyReason?: string;
    };
    expect(info.canRun).toBe(false);
    expect(info.readOnlyReason).toMatch(/^orrery inspect only reads the store/);

    // A run would append the user's message: the store is read-only here.
    const run = await fetch(`${url}run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        appName: 'orrery',
        userId: 'alice',
        sessionId: session.sessionId,
        newMessage: { parts: [{ text: 'hello' }] },
      }),
    });
    expect(run.status).toBe(405);
    const after = (await (await fetch(`${url}inspector/api/sessions`)).json()) as typeof listed;
    expect(after.sessions[0]?.eventCount).toBe(session.eventCount);

    // The page's replay: the CLI's engine, nothing stored.
    const transcript = readFileSync(join(root, 'examples', 'incident-session.jsonl'), 'utf8');
    const replayed = await fetch(`${url}inspector/api/replay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transcript, fileName: 'incident-session.jsonl', threshold: 8000 }),
    });
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({
      file: 'incident-session.jsonl',
      lossless: true,
      orphans: 0,
    });
    const unchanged = (await (await fetch(`${url}inspector/api/sessions`)).json()) as typeof listed;
    expect(unchanged.sessions).toHaveLength(1);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.stdout()).toBe(`orrery inspector: ${url}\n`);
    expect(running.stderr()).toBe('');
  }, 120_000);

  it('refuses a missing store, and --db with --pg-url, before listening', () => {
    const cwd = tempDir();
    const missing = orrery(['inspect', '--db', join(cwd, 'nothing.db'), '--port', '0'], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no session store at/);
    const both = orrery(
      ['inspect', '--db', 'x.db', '--pg-url', 'postgres://u:secret@db/x', '--port', '0'],
      { cwd },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--db or --pg-url/);
    const notPostgres = orrery(['inspect', '--pg-url', 'mysql://u:secret@db/x'], { cwd });
    expect(notPostgres.code).toBe(2);
    expect(notPostgres.stderr).not.toContain('secret');
  }, 120_000);
});
