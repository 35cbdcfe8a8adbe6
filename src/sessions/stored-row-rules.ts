/**
 * What a SQL store checks on every event row it reads, so every store hands out only events the
 * append rule would have taken (SQLite and PostgreSQL alike; the memory store never holds text it
 * did not validate itself). Pure: no I/O.
 *
 * - A corrupt row (the event fails `assertValidEvent`, or the row's compaction flag disagrees with
 *   the event) is a `SessionStoreError` naming the session and `seq`, not retryable.
 * - A compaction that cannot be the checkpoint (its JSON range differs from the row's range
 *   columns, or breaks `1 <= startSeq <= endSeq < seq`, or the row lies past the session's last
 *   seq) is never used as one: the view falls back to the previous checkpoint and reports a
 *   `checkpoint_skipped` warning. Falling back only ever shows more events, never fewer.
 */
import { isValidCompaction, type ViewWarning } from '../compaction/view.js';
import { InvalidEventError } from '../events/errors.js';
import type { Event, SessionKey } from '../events/types.js';
import { assertValidEvent } from '../events/validate-event.js';
import { SessionStoreError } from './errors.js';

/** The indexed columns an event row carries beside its JSON. */
export interface EventRowColumns {
  seq: number;
  isCompaction: boolean;
  compactionStartSeq: number | null;
  compactionEndSeq: number | null;
}

/** `event.content.role: must be ...` -> `field 'content.role' must be ...`. */
function describeField(error: InvalidEventError): string {
  const problem = error.message.slice(error.path.length + 2);
  const field = error.path.replace(/^event\.?/, '');
  return field === '' ? `the event ${problem}` : `field '${field}' ${problem}`;
}

/** A `SessionStoreError` for a row that cannot be read. */
export function corruptRowError(options: {
  key: SessionKey;
  seq: number;
  reason: string;
  cause?: unknown;
}): SessionStoreError {
  const { key, seq } = options;
  return new SessionStoreError({
    message: `Corrupted event at seq ${seq} in session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'): ${options.reason}`,
    sessionId: key.sessionId,
    seq,
    retryable: false,
    cause: options.cause,
  });
}

/**
 * Checks a parsed row against the event rule and its own columns, and sets its `seq`. Throws
 * `corruptRowError` when it breaks either.
 */
export function toCheckedEvent(options: {
  key: SessionKey;
  columns: EventRowColumns;
  event: unknown;
}): Event {
  const { key, columns } = options;
  const event = options.event;
  if (typeof event === 'object' && event !== null && !Array.isArray(event)) {
    (event as Event).seq = columns.seq;
  }
  try {
    // Parsed from JSON text: no JSON walk. Ranges are the checkpoint's business (see above).
    assertValidEvent(event, { stored: true, ranges: false, json: false });
  } catch (error) {
    if (!InvalidEventError.isInstance(error)) throw error;
    throw corruptRowError({ key, seq: columns.seq, reason: describeField(error), cause: error });
  }
  const hasCompaction = event.actions.compaction !== undefined;
  if (hasCompaction !== columns.isCompaction) {
    throw corruptRowError({
      key,
      seq: columns.seq,
      reason: hasCompaction
        ? "field 'actions.compaction' is set on a row not marked as a compaction"
        : "field 'actions.compaction' is missing on a row marked as a compaction",
    });
  }
  return event;
}

/** Why a checked compaction row cannot be the checkpoint, or `undefined` when it can. */
export function checkpointProblem(options: {
  event: Event;
  columns: EventRowColumns;
  lastSeq: number;
}): string | undefined {
  const { event, columns } = options;
  const compaction = event.actions.compaction;
  if (!compaction) return 'it is not a compaction';
  if (
    compaction.startSeq !== columns.compactionStartSeq ||
    compaction.endSeq !== columns.compactionEndSeq
  ) {
    return `its range ${compaction.startSeq}..${compaction.endSeq} does not match the row's ${columns.compactionStartSeq}..${columns.compactionEndSeq}`;
  }
  if (!isValidCompaction(event)) {
    return `its range ${compaction.startSeq}..${compaction.endSeq} is impossible at seq ${event.seq} (1 <= startSeq <= endSeq < seq)`;
  }
  if (event.seq > options.lastSeq) {
    return `it lies past the session's last seq ${options.lastSeq}`;
  }
  return undefined;
}

/** The view warning for a compaction passed over as checkpoint. */
export function skippedCheckpointWarning(options: {
  key: SessionKey;
  seq: number;
  reason: string;
}): ViewWarning {
  return {
    kind: 'checkpoint_skipped',
    seq: options.seq,
    message: `Compaction at seq ${options.seq} in session '${options.key.sessionId}' is not used as the checkpoint: ${options.reason}; the view falls back to the previous one`,
  };
}
