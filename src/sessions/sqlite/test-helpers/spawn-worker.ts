/** Starts `sqlite-worker.ts` as a real node process (tsx loader, no wrapper process, so a
 * SIGKILL hits the process that holds the database). */
import { type ChildProcess, fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerMessage, WorkerTask } from './sqlite-worker.js';

const folder = dirname(fileURLToPath(import.meta.url));
const root = join(folder, '..', '..', '..', '..');

export interface Worker {
  child: ChildProcess;
  messages: WorkerMessage[];
  /** Resolves with the first message matching `predicate`; rejects on an error message or exit. */
  waitFor(predicate: (message: WorkerMessage) => boolean): Promise<WorkerMessage>;
  exited: Promise<number | null>;
}

export function spawnWorker(task: WorkerTask): Worker {
  const child = fork(join(folder, 'sqlite-worker.ts'), [JSON.stringify(task)], {
    cwd: root,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const messages: WorkerMessage[] = [];
  const listeners = new Set<() => void>();
  child.on('message', (message) => {
    messages.push(message as WorkerMessage);
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  function waitFor(predicate: (message: WorkerMessage) => boolean): Promise<WorkerMessage> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const error = messages.find((message) => message.type === 'error');
        if (error && error.type === 'error') {
          listeners.delete(check);
          reject(new Error(`worker ${task.worker}: ${error.message}`));
          return;
        }
        const found = messages.find(predicate);
        if (found) {
          listeners.delete(check);
          resolve(found);
        }
      };
      listeners.add(check);
      void exited.then(() => {
        if (!listeners.has(check)) return;
        check();
        if (listeners.has(check)) {
          listeners.delete(check);
          reject(new Error(`worker ${task.worker} exited before the awaited message`));
        }
      });
      check();
    });
  }
  return { child, messages, waitFor, exited };
}
