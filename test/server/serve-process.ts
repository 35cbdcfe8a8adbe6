/**
 * Spawns the built CLI (`node bin/orrery.js serve --port 0 ...`) as a real process, and reads
 * its URL from the startup line on stderr. Run `npm run build` first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr has printed a line matching `pattern`. */
  waitForStderr(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Starts `orrery serve` and waits for it to listen (or rejects with its stderr if it exits). */
export async function startServe(options: {
  args: string[];
  env: Record<string, string>;
  cwd: string;
}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'orrery.js'), 'serve', '--port', '0', ...options.args],
    {
      cwd: options.cwd,
      env: cleanEnv(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
    for (const listener of [...listeners]) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const waitForStderr = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(stderr)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      check();
      void exited.then(({ code }) => {
        if (!listeners.has(check)) return;
        listeners.delete(check);
        reject(new Error(`orrery serve exited (${code}) before ${pattern}: ${stderr}`));
      });
    });
  await waitForStderr(/on (http:\/\/\S+),/);
  const url = /on (http:\/\/\S+),/.exec(stderr)?.[1] as string;
  return { child, url, stdout: () => stdout, stderr: () => stderr, waitForStderr, exited };
}
