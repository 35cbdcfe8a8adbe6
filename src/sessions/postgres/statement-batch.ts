/**
 * Group commit on PostgreSQL: the turn statements that several sessions issue in one
 * event-loop turn (the takes and answers of the requests served at once) run as one
 * simple-protocol Query of `EXECUTE`s of statements prepared on that connection. One round
 * trip, one transaction and one WAL flush for all of them, where each alone pays its own
 * (docs/performance.md, "Group commit on PostgreSQL").
 *
 * A lone statement runs as before (named, extended protocol): nothing waits for a batch. The
 * statements of a batch commit together or not at all (a multi-statement Query is one
 * implicit transaction), so when the server refuses one of them (an `ERROR`: nothing
 * committed) each runs again alone and gets its own answer; a connection lost or a deadline
 * passed (the outcome unknown) is every statement's error, never sent again. Sessions are
 * locked in key order within a batch, so two batches cannot deadlock on each other.
 */
import type { PoolClient } from 'pg';
import type { SessionKey } from '../../events/types.js';
import { compareSessionKeys } from '../compare-session-keys.js';
import { isConnectionError } from './pg-errors.js';
import type { Statement } from './queries.js';

/** One statement waiting for its batch. */
export interface BatchedStatement {
  key: SessionKey;
  signal: AbortSignal | undefined;
  statement: Statement;
  values: unknown[];
  operation: string;
}

export interface StatementBatchOptions {
  /** The statement alone, as the connection runs it unbatched (errors already the store's). */
  runAlone(statement: BatchedStatement): Promise<object[]>;
  /** `work` on a pooled connection, under the statement deadline; the driver's errors. */
  withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
  /** A driver error, an abort reason or a timeout as the statement's store error. */
  toError(error: unknown, statement: BatchedStatement): unknown;
  /** The most statements one Query carries (default 64); more go in further batches. */
  maxStatements?: number;
}

interface Waiting {
  request: BatchedStatement;
  literals: string[];
  resolve(rows: object[]): void;
  reject(error: unknown): void;
  settled: boolean;
  onAbort?: () => void;
}

/** Values longer than this in all (characters) make a statement run alone. */
const MAX_BATCHED_LITERALS_LENGTH = 256 * 1024;

function literalsLength(literals: readonly string[]): number {
  let length = 0;
  for (const literal of literals) length += literal.length;
  return length;
}

/** The statements prepared by `PREPARE` on a connection, kept on the pg client itself. */
const preparedBySql = Symbol('orrery.preparedBySql');
type TrackedClient = PoolClient & { [preparedBySql]?: Set<string> };

export class StatementBatch {
  private readonly options: StatementBatchOptions;
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(options: StatementBatchOptions) {
    this.options = options;
  }

  /** The statement's rows, from its batch or alone. A statement without a name runs alone. */
  run<Row extends object>(request: BatchedStatement): Promise<Row[]> {
    const literals = request.statement.name ? sqlLiterals(request.values) : undefined;
    // A large value (a tool's long output) is bound as a parameter: no copy escaped into the
    // Query's text for the server to scan again.
    if (!literals || literalsLength(literals) > MAX_BATCHED_LITERALS_LENGTH) {
      return this.options.runAlone(request) as Promise<Row[]>;
    }
    if (request.signal?.aborted) {
      return Promise.reject(this.options.toError(request.signal.reason, request));
    }
    return new Promise<Row[]>((resolve, reject) => {
      const entry: Waiting = {
        request,
        literals,
        resolve: resolve as (rows: object[]) => void,
        reject,
        settled: false,
      };
      this.watchAbort(entry);
      this.waiting.push(entry);
      this.schedule();
    });
  }

  private watchAbort(entry: Waiting): void {
    const signal = entry.request.signal;
    if (!signal) return;
    // Aborted while queued or in flight: its caller hears at once; a batch already sent goes
    // on for the others (the statement may commit, as an aborted lone statement may).
    entry.onAbort = () =>
      this.settle(entry, undefined, this.options.toError(signal.reason, entry.request));
    signal.addEventListener('abort', entry.onAbort, { once: true });
  }

  private settle(entry: Waiting, rows: object[] | undefined, error?: unknown): void {
    if (entry.settled) return;
    entry.settled = true;
    if (entry.onAbort) entry.request.signal?.removeEventListener('abort', entry.onAbort);
    if (rows) entry.resolve(rows);
    else entry.reject(error);
  }

  private flush(): void {
    this.scheduled = false;
    const entries = this.waiting.filter((entry) => !entry.settled);
    this.waiting = [];
    const max = this.options.maxStatements ?? 64;
    for (let start = 0; start < entries.length; start += max) {
      const batch = entries.slice(start, start + max);
      const only = batch.length === 1 ? batch[0] : undefined;
      void (only ? this.runAloneInto(only) : this.runBatch(batch));
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the I/O callbacks of this loop turn: every statement they issued is queued.
    setImmediate(() => this.flush());
  }

  private runAloneInto(entry: Waiting): Promise<void> {
    // The lone path honours the signal itself.
    if (entry.onAbort) entry.request.signal?.removeEventListener('abort', entry.onAbort);
    entry.onAbort = undefined;
    return this.options.runAlone(entry.request).then(
      (rows) => this.settle(entry, rows),
      (error: unknown) => this.settle(entry, undefined, error),
    );
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    // One lock order for every batch: by session key (each statement locks its own rows).
    batch.sort((first, second) => compareSessionKeys(first.request.key, second.request.key));
    let results: object[][];
    try {
      results = await this.options.withClient(async (pooled) => {
        const client = pooled as TrackedClient;
        await prepareOn(client, batch);
        const text = batch
          .map(
            (entry) => `EXECUTE ${sqlName(entry.request.statement)}(${entry.literals.join(', ')})`,
          )
          .join(';\n');
        const answer = (await client.query(text).catch((error: unknown) => {
          // The server lost them (a pooler's DISCARD ALL): prepared again by the next batch.
          if ((error as { code?: unknown }).code === '26000') delete client[preparedBySql];
          throw error;
        })) as unknown as { rows: object[] }[];
        if (!Array.isArray(answer) || answer.length !== batch.length) {
          throw new Error(`a batch of ${batch.length} statements got ${answer.length} results`);
        }
        return answer.map((result) => result.rows);
      });
    } catch (error) {
      if (refusedByServer(error)) {
        // Nothing of the batch committed: each statement alone gets its own answer.
        await Promise.all(
          batch.filter((entry) => !entry.settled).map((entry) => this.runAloneInto(entry)),
        );
        return;
      }
      for (const entry of batch)
        this.settle(entry, undefined, this.options.toError(error, entry.request));
      return;
    }
    for (const [index, entry] of batch.entries()) this.settle(entry, results[index] ?? []);
  }
}

/** The statement's name for `PREPARE`/`EXECUTE`: apart from pg's own protocol-level name. */
function sqlName(statement: Statement): string {
  return `${statement.name}_batch`;
}

/** `PREPARE`s the batch's statements this connection has not prepared yet. */
async function prepareOn(client: TrackedClient, batch: Waiting[]): Promise<void> {
  client[preparedBySql] ??= new Set();
  const prepared = client[preparedBySql];
  for (const entry of batch) {
    const statement = entry.request.statement;
    const name = sqlName(statement);
    if (prepared.has(name)) continue;
    try {
      await client.query(`PREPARE ${name} AS ${statement.text}`);
    } catch (error) {
      if ((error as { code?: unknown }).code !== '42P05') throw error; // 42P05: already there
    }
    prepared.add(name);
  }
}

/** The server answered with an `ERROR`: the transaction rolled back, the connection is fine. */
function refusedByServer(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  return severity === 'ERROR' && !isConnectionError(error);
}

/**
 * The values as SQL literals, each the text pg would send as the parameter (typed by the
 * prepared statement); `undefined` when one is of a kind this does not write (it runs alone).
 */
export function sqlLiterals(values: readonly unknown[]): string[] | undefined {
  const literals: string[] = [];
  for (const value of values) {
    const literal = sqlLiteral(value);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return literals;
}

function sqlLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  // A NUL would end the Query's text; alone, the statement gets the server's own error.
  if (typeof value === 'string') return value.includes('\0') ? undefined : quoteText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return quoteText(String(value));
  return undefined;
}

/** A string constant; with a backslash, the escape-string form (any `standard_conforming_strings`). */
function quoteText(text: string): string {
  const quoted = text.replaceAll("'", "''");
  if (!text.includes('\\')) return `'${quoted}'`;
  return `E'${quoted.replaceAll('\\', '\\\\')}'`;
}
