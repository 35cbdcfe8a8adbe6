/**
 * Group commit for the SQLite store: the writes issued in one turn of the event loop (the
 * appends and lease rows of every session served at once) are stored by one `BEGIN IMMEDIATE`
 * ... `COMMIT`, each write in a savepoint of its own. A commit's cost is mostly the pages it
 * writes to the WAL (the session row, its indexes, the events' leaves: the same pages for every
 * session) and the system calls that write them, so k writes in one commit cost little more
 * than one (docs/performance.md, group commit).
 *
 * Each write keeps its own outcome: one that throws is rolled back to its savepoint and rejects
 * alone, the others are committed. A write resolves only once its commit has returned, so it is
 * as durable as before. A write alone in its turn runs as it always did (its own transaction,
 * or a single statement auto-committed). A busy database (another process holds the write
 * lock) is waited for per write as `runWhileBusy` does, asynchronously, up to the write's
 * `waitMs` or its signal; a failure SQLite answers by rolling the whole transaction back fails
 * every write of it (none of them is stored).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SessionStoreError } from '../errors.js';
import {
  FIRST_BUSY_DELAY_MS,
  MAX_BUSY_DELAY_MS,
  type RunWhileBusyOptions,
  waitWhileBusy,
} from './busy-wait.js';
import { isBusyError, toSqliteStoreError } from './sqlite-errors.js';

export interface QueuedWriteOptions<T> extends RunWhileBusyOptions {
  /** One statement: alone in its turn, it runs without `BEGIN` / `COMMIT` (auto-committed). */
  statement?: boolean;
  /** A busy database: settle with this at once instead of waiting (a lease take polls itself). */
  whenBusy?: () => T;
  /** Keep the driver's error as it is (the caller words its own); default: a typed store error. */
  rawErrors?: boolean;
}

interface QueuedWrite {
  work: () => unknown;
  options: QueuedWriteOptions<unknown>;
  started: number;
  attempt: number;
  delay: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class SqliteWriteQueue {
  /** Made once: the driver's `transaction()` builds five wrappers a call (5% of a turn's CPU). */
  private readonly inTransaction: BetterSqlite3.Transaction<(work: () => unknown) => unknown>;
  private readonly inOneTransaction: BetterSqlite3.Transaction<(batch: QueuedWrite[]) => Outcome[]>;
  private pending: QueuedWrite[] = [];
  private scheduled = false;
  private closed = false;

  constructor(database: BetterSqlite3.Database) {
    this.inTransaction = database.transaction((work: () => unknown) => work());
    this.inOneTransaction = database.transaction((batch: QueuedWrite[]) => {
      const outcomes: Outcome[] = [];
      for (const write of batch) {
        try {
          // Inside the batch's transaction: a savepoint, rolled back alone on a throw.
          outcomes.push({ ok: true, value: this.inTransaction(write.work) });
        } catch (error) {
          // SQLite rolled the whole transaction back: nothing of the batch is stored.
          if (!database.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }

  /** Runs `work` (synchronous SQL, no transaction of its own) in this turn's shared commit. */
  write<T>(work: () => T, options: QueuedWriteOptions<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({
        work,
        options: options as QueuedWriteOptions<unknown>,
        started: Date.now(),
        attempt: 1,
        delay: FIRST_BUSY_DELAY_MS,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
  }

  /** Stores what is queued now (before the database closes); later writes are refused. */
  close(): void {
    if (this.pending.length > 0) this.flush();
    this.closed = true;
  }

  private enqueue(write: QueuedWrite): void {
    if (this.closed) {
      write.reject(new SessionStoreError({ message: 'SqliteSessionService is closed' }));
      return;
    }
    this.pending.push(write);
    if (this.scheduled) return;
    this.scheduled = true;
    // After the I/O callbacks of this turn: every request read in it has queued its write.
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch: QueuedWrite[] = [];
    for (const write of this.pending) {
      if (write.options.signal?.aborted) write.reject(write.options.signal.reason);
      else batch.push(write);
    }
    this.pending = [];
    if (batch.length === 1) this.runAlone(batch[0]!);
    else if (batch.length > 1) this.runTogether(batch);
  }

  private runAlone(write: QueuedWrite): void {
    let value: unknown;
    try {
      value = write.options.statement ? write.work() : this.inTransaction.immediate(write.work);
    } catch (error) {
      this.failed(write, error);
      return;
    }
    write.resolve(value);
  }

  private runTogether(batch: QueuedWrite[]): void {
    let outcomes: Outcome[];
    try {
      outcomes = this.inOneTransaction.immediate(batch);
    } catch (error) {
      // BEGIN found the database busy, or the commit failed: none of the batch is stored.
      for (const write of batch) this.failed(write, error);
      return;
    }
    batch.forEach((write, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) write.resolve(outcome.value);
      else this.failed(write, outcome.error);
    });
  }

  private failed(write: QueuedWrite, error: unknown): void {
    const { options } = write;
    if (!isBusyError(error)) {
      write.reject(options.rawErrors ? error : toSqliteStoreError(error, options));
      return;
    }
    if (options.whenBusy) {
      write.resolve(options.whenBusy());
      return;
    }
    waitWhileBusy({
      options,
      started: write.started,
      attempt: write.attempt,
      delay: write.delay,
      cause: error,
    }).then(
      () => {
        write.attempt++;
        write.delay = Math.min(write.delay * 2, MAX_BUSY_DELAY_MS);
        this.enqueue(write);
      },
      (reason: unknown) => write.reject(reason),
    );
  }
}
