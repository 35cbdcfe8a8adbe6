/** Starts `worker.ts` in a real child process (tsx) and follows its line protocol. */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { WorkerConfig, WorkerResult } from './worker.js';

const folder = dirname(fileURLToPath(import.meta.url));
const root = join(folder, '..', '..', '..', '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

export interface Worker {
  child: ChildProcess;
  /** Lines printed so far. */
  lines: string[];
  /** Resolves with the first line starting with `prefix` (rejects if the process exits first). */
  waitFor(prefix: string): Promise<string>;
  go(): void;
  /** SIGKILL to the whole process group (tsx and the node process running the script). */
  kill(): void;
  result(): Promise<WorkerResult>;
  /** Exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnWorker(config: WorkerConfig): Worker {
  const child = spawn(tsx, [join(folder, 'worker.ts'), JSON.stringify(config)], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Own process group: tsx runs the script in a child node process, and a SIGKILL must hit
    // both (a surviving grandchild would keep its connection and its locks).
    detached: true,
  });
  const lines: string[] = [];
  const waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (line.startsWith(waiter.prefix)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  function waitFor(prefix: string): Promise<string> {
    const seen = lines.find((line) => line.startsWith(prefix));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ prefix, resolve });
      void exited.then(({ code, signal }) => {
        // Give the line reader a moment: stdout may flush after 'exit'.
        setTimeout(() => {
          const late = lines.find((line) => line.startsWith(prefix));
          if (late) resolve(late);
          else
            reject(
              new Error(
                `worker exited (code ${code}, signal ${signal}) before '${prefix}': ${stderr}`,
              ),
            );
        }, 50);
      });
    });
  }
  return {
    child,
    lines,
    waitFor,
    go: () => child.stdin?.write('go\n'),
    kill: () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    result: async () =>
      JSON.parse((await waitFor('result ')).slice('result '.length)) as WorkerResult,
    exited,
  };
}
