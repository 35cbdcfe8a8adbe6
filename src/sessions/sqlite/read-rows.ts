/**
 * Event rows of the SQLite store as checked events (stored-row-rules.ts): what the store hands
 * out is what the append rule would take, and a checkpoint that cannot be one is passed over.
 */
import type { ViewWarning } from '../../compaction/view.js';
import type { CompactionEvent, Event, SessionKey } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';
import type { StoredView } from '../session-service.js';
import {
  checkpointProblem,
  corruptRowError,
  type EventRowColumns,
  skippedCheckpointWarning,
  toCheckedEvent,
} from '../stored-row-rules.js';
import type { EventRow, SqliteStatements } from './statements.js';

export interface RowReadOptions {
  key: SessionKey;
  /** `throw` (default): a corrupt row is a `SessionStoreError`. `skip`: left out and logged. */
  onCorruptEvent?: 'throw' | 'skip';
  logger?: { warn(fields: Record<string, unknown>, message: string): void };
}

function columnsOf(row: EventRow): EventRowColumns {
  return {
    seq: row.seq,
    isCompaction: row.is_compaction === 1,
    compactionStartSeq: row.compaction_start_seq,
    compactionEndSeq: row.compaction_end_seq,
  };
}

/** One row as a checked event; throws `SessionStoreError` naming session and seq when corrupt. */
function checkRow(row: EventRow, key: SessionKey): Event {
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.event);
  } catch (error) {
    throw corruptRowError({
      key,
      seq: row.seq,
      reason: `invalid JSON (${(error as Error).message})`,
      cause: error,
    });
  }
  return toCheckedEvent({ key, columns: columnsOf(row), event: parsed });
}

/** A row as an event; `undefined` for a corrupt row in `skip` mode (logged). */
export function readRow(row: EventRow, options: RowReadOptions): Event | undefined {
  try {
    return checkRow(row, options.key);
  } catch (error) {
    if (options.onCorruptEvent !== 'skip' || !SessionStoreError.isInstance(error)) throw error;
    options.logger?.warn({ ...options.key, seq: row.seq }, `${error.message}; skipped`);
    return undefined;
  }
}

export function readRows(rows: Iterable<EventRow>, options: RowReadOptions): Event[] {
  const events: Event[] = [];
  for (const row of rows) {
    const event = readRow(row, options);
    if (event) events.push(event);
  }
  return events;
}

/**
 * The checkpoint: the first candidate (SQL order: largest end, then later seq) that can be one.
 * Normally the first row; each one passed over adds a `checkpoint_skipped` warning.
 */
export function readCheckpoint(
  statements: SqliteStatements,
  lastSeq: number,
  options: RowReadOptions,
): { checkpoint?: CompactionEvent; warnings: ViewWarning[] } {
  const { key } = options;
  const warnings: ViewWarning[] = [];
  const rows = statements.checkpoints.iterate(key.appName, key.userId, key.sessionId, lastSeq);
  for (const row of rows) {
    const event = readRow(row, options);
    if (!event) {
      warnings.push(skippedCheckpointWarning({ key, seq: row.seq, reason: 'its row is corrupt' }));
      continue;
    }
    const problem = checkpointProblem({ event, columns: columnsOf(row), lastSeq });
    if (problem) {
      options.logger?.warn({ ...key, seq: row.seq }, `checkpoint skipped: ${problem}`);
      warnings.push(skippedCheckpointWarning({ key, seq: row.seq, reason: problem }));
      continue;
    }
    return { checkpoint: event as CompactionEvent, warnings };
  }
  return { warnings };
}

/** Checkpoint + tail: one index probe and one range scan when nothing is skipped. */
export function readSqliteView(
  statements: SqliteStatements,
  lastSeq: number,
  options: RowReadOptions,
): StoredView {
  const { key } = options;
  const { checkpoint, warnings } = readCheckpoint(statements, lastSeq, options);
  const rows = statements.tail.iterate(
    key.appName,
    key.userId,
    key.sessionId,
    checkpoint?.actions.compaction.endSeq ?? 0,
  );
  const view: StoredView = { checkpoint, tail: readRows(rows, options), lastSeq };
  if (warnings.length > 0) view.warnings = warnings;
  return view;
}
