/**
 * A child process for the multi-process tests: opens the SQLite file and appends or compacts
 * as told (argv[2] is a JSON `WorkerTask`), reporting over IPC. Not part of the library.
 */
import type { NewEvent } from '../../../events/types.js';
import { compactionEvent, userTextEvent } from '../../../testing/event-builders.js';
import { CompactionConflictError } from '../../errors.js';
import { SqliteSessionService } from '../sqlite-session-service.js';

export interface WorkerTask {
  path: string;
  appName: string;
  userId: string;
  sessionId: string;
  /** `append`: `count` events. `compact`: one compaction of [1, endSeq] after 'go'.
   * `append-forever` / `compact-forever`: loop until killed. `fresh-start`: open the file only
   * after 'go' (so every worker opens and migrates at once), then create session
   * `<sessionId>-<worker>` and append `count` events to it. */
  mode: 'append' | 'compact' | 'append-forever' | 'compact-forever' | 'fresh-start';
  count?: number;
  endSeq?: number;
  worker: number;
  /** Filler bytes in each appended event's text; default 200. */
  textBytes?: number;
  /** Size of the summary text in `compact-forever`, to make each write take a while. */
  summaryBytes?: number;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'progress'; appended: number; compacted: number }
  | { type: 'done'; seqs: number[] }
  | { type: 'compacted'; seq: number }
  | { type: 'conflict' }
  | { type: 'error'; message: string };

const task = JSON.parse(process.argv[2] ?? '{}') as WorkerTask;
const key = { appName: task.appName, userId: task.userId, sessionId: task.sessionId };
const service = new SqliteSessionService({ path: task.path, busyTimeoutMs: 20_000 });
/** Resolves once the message is handed to the IPC channel, so exiting right after is safe. */
function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

function message(index: number): NewEvent {
  return userTextEvent({
    id: `worker-${task.worker}-${index}`,
    invocationId: `worker-${task.worker}`,
    text: `worker ${task.worker} event ${index} ${'x'.repeat(task.textBytes ?? 200)}`,
  });
}

function compaction(endSeq: number, text: string): NewEvent {
  return compactionEvent({
    id: `compaction-${task.worker}-${endSeq}-${Math.random()}`,
    invocationId: `compaction-${task.worker}`,
    startSeq: 1,
    endSeq,
    text,
    tokensBefore: 1,
    tokensAfter: 1,
    summarizer: `worker-${task.worker}`,
  });
}

function waitForGo(): Promise<void> {
  return new Promise((resolve) => process.once('message', () => resolve()));
}

async function main(): Promise<void> {
  if (task.mode !== 'fresh-start') await service.getDatabase();
  await send({ type: 'ready' });
  await waitForGo();
  if (task.mode === 'fresh-start') {
    const own = { ...key, sessionId: `${key.sessionId}-${task.worker}` };
    await service.createSession(own);
    const seqs: number[] = [];
    for (let index = 0; index < (task.count ?? 0); index++) {
      seqs.push((await service.appendEvent({ ...own, event: message(index) })).seq);
    }
    await send({ type: 'done', seqs });
  } else if (task.mode === 'append') {
    const seqs: number[] = [];
    for (let index = 0; index < (task.count ?? 0); index++) {
      seqs.push((await service.appendEvent({ ...key, event: message(index) })).seq);
    }
    await send({ type: 'done', seqs });
  } else if (task.mode === 'compact') {
    try {
      const stored = await service.appendCompaction({
        ...key,
        event: compaction(task.endSeq ?? 1, `summary by worker ${task.worker}`),
        expectedCheckpointSeq: null,
      });
      await send({ type: 'compacted', seq: stored.seq });
    } catch (error) {
      if (!CompactionConflictError.isInstance(error)) throw error;
      await send({ type: 'conflict' });
    }
  } else {
    let appended = 0;
    let compacted = 0;
    for (;;) {
      await service.appendEvent({ ...key, event: message(appended++) });
      if (task.mode === 'compact-forever' && appended % 3 === 0) {
        const view = await service.loadView(key);
        // The summary text encodes its own length so a reader can tell it is whole.
        const body = 'y'.repeat(task.summaryBytes ?? 100_000);
        await service.appendCompaction({
          ...key,
          event: compaction(view.lastSeq - 1, `len:${body.length}:${body}`),
          expectedCheckpointSeq: view.checkpoint?.seq ?? null,
        });
        compacted++;
      }
      if (appended % 10 === 0) void send({ type: 'progress', appended, compacted });
    }
  }
  await service.close();
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    await send({ type: 'error', message: String((error as Error)?.stack ?? error) });
    process.exit(1);
  },
);
