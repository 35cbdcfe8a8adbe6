/** Row -> event mapping for the PostgreSQL store: each row checked as stored-row-rules.ts says. */
import type { Event, NewEvent, SessionKey } from '../../events/types.js';
import { type StateDeltaParts, splitState, toStoredEventWithJson } from '../store-helpers.js';
import { checkpointProblem, type EventRowColumns, toCheckedEvent } from '../stored-row-rules.js';
import { assertJsonbStorable } from './jsonb-state.js';

export interface EventRow {
  seq: string | number;
  is_compaction: boolean;
  compaction_start_seq: string | number | null;
  compaction_end_seq: string | number | null;
  event: unknown;
}

/** The row's range columns, as the shared row rules read them. */
export function rowColumns(row: EventRow): EventRowColumns {
  return {
    seq: Number(row.seq),
    isCompaction: row.is_compaction,
    compactionStartSeq: row.compaction_start_seq === null ? null : Number(row.compaction_start_seq),
    compactionEndSeq: row.compaction_end_seq === null ? null : Number(row.compaction_end_seq),
  };
}

/**
 * Parses a row by the append rule and its own columns (stored-row-rules.ts); throws
 * `SessionStoreError` naming the session and `seq` when it is corrupt.
 */
export function rowToEvent(row: EventRow, key: SessionKey): Event {
  // A copy: the driver's object is the caller's only through this function's result.
  const event = typeof row.event === 'object' && row.event !== null ? { ...row.event } : row.event;
  return toCheckedEvent({ key, columns: rowColumns(row), event });
}

/** Why a checked compaction row cannot be the checkpoint, or `undefined`. */
export function checkpointRowProblem(
  row: EventRow,
  event: Event,
  lastSeq: number,
): string | undefined {
  return checkpointProblem({ event, columns: rowColumns(row), lastSeq });
}

export interface EventRowValues {
  /** The event as stored: no `seq` (a column), no `temp:` state keys. */
  stored: NewEvent;
  isCompaction: boolean;
  compactionStartSeq: number | null;
  compactionEndSeq: number | null;
  /** The `event` json column's text. */
  json: string;
}

/** What the store writes for an event (the bench's bulk seeding writes the same). */
export function toEventRowValues(event: NewEvent): EventRowValues {
  // The copy's JSON without `seq` is the column's text: no second `JSON.stringify`.
  const { event: copy, bodyJson } = toStoredEventWithJson(event, 0);
  const { seq: _seq, ...stored } = copy;
  const compaction = stored.actions.compaction;
  return {
    stored,
    isCompaction: compaction !== undefined,
    compactionStartSeq: compaction?.startSeq ?? null,
    compactionEndSeq: compaction?.endSeq ?? null,
    json: bodyJson,
  };
}

export interface PreparedEventRow {
  values: EventRowValues;
  scoped: StateDeltaParts;
  /** `app:` or `user:` keys in the delta: rows beyond the session's, so a transaction. */
  touchesSharedState: boolean;
}

/** The row to write and its state delta by scope, checked before any connection is taken. */
export function prepareEventRow(event: NewEvent): PreparedEventRow {
  const values = toEventRowValues(event);
  const scoped = splitState(values.stored.actions.stateDelta);
  assertJsonbStorable(scoped, 'event.actions.stateDelta');
  const touchesSharedState =
    Object.keys(scoped.app).length > 0 || Object.keys(scoped.user).length > 0;
  return { values, scoped, touchesSharedState };
}
