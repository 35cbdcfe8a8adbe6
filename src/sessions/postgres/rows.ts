/** Row -> event mapping for the PostgreSQL store, with the shape checks that find corrupt rows. */
import type { Event, NewEvent, SessionKey } from '../../events/types.js';
import { SessionStoreError } from '../errors.js';
import { toStoredEvent } from '../store-helpers.js';

export interface EventRow {
  seq: string | number;
  is_compaction: boolean;
  compaction_start_seq: string | number | null;
  compaction_end_seq: string | number | null;
  event: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first shape problem of a stored event, or `undefined` when it is readable. */
function findShapeProblem(row: EventRow, value: unknown): string | undefined {
  if (!isRecord(value)) return 'event is not a JSON object';
  for (const field of ['id', 'invocationId', 'author'] as const) {
    if (typeof value[field] !== 'string') return `field '${field}' is not a string`;
  }
  if (typeof value.timestamp !== 'number' || !Number.isFinite(value.timestamp)) {
    return `field 'timestamp' is not a number: ${JSON.stringify(value.timestamp)}`;
  }
  if (!isRecord(value.actions)) return `field 'actions' is not an object`;
  if (value.content !== undefined && value.content !== null) {
    const content = value.content;
    if (!isRecord(content)) return `field 'content' is not an object`;
    if (content.role !== 'user' && content.role !== 'model') {
      return `field 'content.role' is ${JSON.stringify(content.role)}`;
    }
    if (!Array.isArray(content.parts) || !content.parts.every(isRecord)) {
      return `field 'content.parts' is not a list of parts`;
    }
  }
  const compaction = value.actions.compaction;
  if (row.is_compaction) {
    if (!isRecord(compaction)) return `field 'actions.compaction' is missing`;
    if (
      compaction.startSeq !== Number(row.compaction_start_seq) ||
      compaction.endSeq !== Number(row.compaction_end_seq)
    ) {
      return `field 'actions.compaction' range ${JSON.stringify(compaction.startSeq)}..${JSON.stringify(compaction.endSeq)} does not match the row's ${row.compaction_start_seq}..${row.compaction_end_seq}`;
    }
    if (!isRecord(compaction.compactedContent)) {
      return `field 'actions.compaction.compactedContent' is not an object`;
    }
  } else if (compaction !== undefined) {
    return `field 'actions.compaction' is set on a row not marked as a compaction`;
  }
  return undefined;
}

/** Parses a row; throws `SessionStoreError` naming the session and `seq` when it is corrupt. */
export function rowToEvent(row: EventRow, key: SessionKey): Event {
  const seq = Number(row.seq);
  const problem = findShapeProblem(row, row.event);
  if (problem) {
    throw new SessionStoreError({
      message: `Corrupted event at seq ${seq} in session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): ${problem}`,
      sessionId: key.sessionId,
      seq,
    });
  }
  return { ...(row.event as NewEvent), seq };
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
  const { seq: _seq, ...stored } = toStoredEvent(event, 0);
  const compaction = stored.actions.compaction;
  return {
    stored,
    isCompaction: compaction !== undefined,
    compactionStartSeq: compaction?.startSeq ?? null,
    compactionEndSeq: compaction?.endSeq ?? null,
    json: JSON.stringify(stored),
  };
}
