/** Starts `lease-worker.ts` as one real node process (tsx loader), so a SIGKILL hits it. */
import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LeaseWorkerMessage, LeaseWorkerTask } from './lease-worker.js';

const folder = dirname(fileURLToPath(import.meta.url));
const root = join(folder, '..', '..', '..');

export interface LeaseWorker {
  child: ChildProcess;
  messages: LeaseWorkerMessage[];
  /** The first message of that type; rejects on an error message or an exit before it. */
  waitFor<Type extends LeaseWorkerMessage['type']>(
    type: Type,
  ): Promise<Extract<LeaseWorkerMessage, { type: Type }>>;
  go(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnLeaseWorker(task: LeaseWorkerTask): LeaseWorker {
  const child = fork(join(folder, 'lease-worker.ts'), [JSON.stringify(task)], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages: LeaseWorkerMessage[] = [];
  const listeners = new Set<() => void>();
  child.on('message', (message) => {
    messages.push(message as LeaseWorkerMessage);
    for (const listener of [...listeners]) listener();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  function waitFor<Type extends LeaseWorkerMessage['type']>(
    type: Type,
  ): Promise<Extract<LeaseWorkerMessage, { type: Type }>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const error = messages.find((message) => message.type === 'error');
        if (error?.type === 'error') {
          listeners.delete(check);
          reject(new Error(`worker ${task.worker}: ${error.message}`));
          return;
        }
        const found = messages.find((message) => message.type === type);
        if (found) {
          listeners.delete(check);
          resolve(found as Extract<LeaseWorkerMessage, { type: Type }>);
        }
      };
      listeners.add(check);
      void exited.then(({ code, signal }) => {
        if (!listeners.has(check)) return;
        check();
        if (!listeners.has(check)) return;
        listeners.delete(check);
        reject(new Error(`worker ${task.worker} exited (${code ?? signal}) before '${type}'`));
      });
      check();
    });
  }
  return { child, messages, waitFor, go: () => child.send('go'), exited };
}
