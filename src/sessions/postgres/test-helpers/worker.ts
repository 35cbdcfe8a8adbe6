/**
 * A separate runner process for the multi-process tests (run with `node_modules/.bin/tsx`).
 * argv[2] is a JSON `WorkerConfig`. It prints `ready`, waits for `go` on stdin, does its job and
 * prints `result <json>`. With `pauseAtCommit` it prints `paused` when its transaction is about
 * to commit and hangs there, so the parent can SIGKILL it mid-transaction.
 */
import { createInterface } from 'node:readline';
import pg from 'pg';
import { compactionEvent, userTextEvent } from '../../../testing/event-builders.js';
import { CompactionConflictError } from '../../errors.js';
import { PostgresSessionService } from '../postgres-session-service.js';

export interface WorkerConfig {
  url: string;
  schema: string;
  appName: string;
  userId: string;
  sessionId: string;
  job:
    | {
        kind: 'append';
        count: number;
        tag: string;
        /** An `app:` key in each event's delta: the transactional append (BEGIN ... COMMIT). */
        appState?: boolean;
      }
    | { kind: 'compact'; startSeq: number; endSeq: number; expectedCheckpointSeq: number | null };
  pauseAtCommit?: boolean;
}

export type WorkerResult =
  | { kind: 'append'; seqs: number[]; ids: string[] }
  | { kind: 'compact'; outcome: 'stored'; seq: number }
  | { kind: 'compact'; outcome: 'conflict'; actualCheckpointSeq: number | null };

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const pool = new pg.Pool({ connectionString: config.url, max: 1 });
// A connection dropped while idle must end this worker's job with an error, not crash it.
pool.on('error', (error) => process.stderr.write(`idle connection lost: ${error.message}\n`));
/** Set after `go`, so the migration's own COMMIT at start-up goes through. */
let armed = false;

if (config.pauseAtCommit) {
  // Hang on COMMIT: the transaction's statements have run, nothing is committed yet.
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      if (armed && args[0] === 'COMMIT') {
        process.stdout.write('paused\n');
        return new Promise(() => {});
      }
      return query(...args);
    };
  });
}

const service = new PostgresSessionService({ pool, schema: config.schema });
const key = { appName: config.appName, userId: config.userId, sessionId: config.sessionId };
await service.migrate();
await pool.query('SELECT 1'); // connection open before the start signal
process.stdout.write('ready\n');

const input = createInterface({ input: process.stdin });
// The parent test died (stdin closed): do not linger holding connections and locks.
input.on('close', () => process.exit(1));
await new Promise<void>((resolve) => {
  input.on('line', (line) => {
    if (line.trim() === 'go') resolve();
  });
});
armed = config.pauseAtCommit === true;

let result: WorkerResult;
const job = config.job;
if (job.kind === 'append') {
  const seqs: number[] = [];
  const ids: string[] = [];
  for (let index = 0; index < job.count; index++) {
    const stateDelta = job.appState ? { 'app:last': `${job.tag} #${index}` } : undefined;
    const event = userTextEvent({ text: `${job.tag} #${index}`, actions: { stateDelta } });
    const stored = await service.appendEvent({ ...key, event });
    seqs.push(stored.seq);
    ids.push(stored.id);
    process.stdout.write(`seq ${stored.seq}\n`);
  }
  result = { kind: 'append', seqs, ids };
} else {
  try {
    const stored = await service.appendCompaction({
      ...key,
      event: compactionEvent({
        startSeq: job.startSeq,
        endSeq: job.endSeq,
        text: `by ${process.pid}`,
      }),
      expectedCheckpointSeq: job.expectedCheckpointSeq,
    });
    result = { kind: 'compact', outcome: 'stored', seq: stored.seq };
  } catch (error) {
    if (!CompactionConflictError.isInstance(error)) throw error;
    result = {
      kind: 'compact',
      outcome: 'conflict',
      actualCheckpointSeq: error.actualCheckpointSeq,
    };
  }
}
process.stdout.write(`result ${JSON.stringify(result)}\n`);
await pool.end();
process.exit(0);
