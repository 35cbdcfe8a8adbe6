/**
 * `orrery serve` as a real process from source, for the tests that need one: the environment
 * (no `ORRERY_*` of the caller's; a model id the CLI accepts, nothing listening there), the
 * spawn, and the wait for its startup line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './run-cli.js';

const entry = join(root, 'src', 'cli', 'entry.ts');
/** tsx's loader by path: the scratch directory has no node_modules to find it in. */
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export function serveEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  return {
    ...env,
    ORRERY_MODEL: 'openai-compatible:test-model',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:9/v1',
  };
}

export interface ServeProcess {
  child: ChildProcess;
  /** The startup line's match. */
  line: RegExpExecArray;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `orrery <args>` in `cwd` and waits for `startupLine` on stderr (rejects if it exits first). */
export async function startServe(options: {
  args: string[];
  cwd: string;
  startupLine: RegExp;
}): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', tsxLoader, entry, ...options.args], {
    cwd: options.cwd,
    env: serveEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
      const match = options.startupLine.exec(stderr);
      if (match) resolve(match);
    });
    void exited.then(({ code }) =>
      reject(
        new Error(`orrery ${options.args[0]} exited (${code}) before its startup line: ${stderr}`),
      ),
    );
  });
  return { child, line, exited };
}
