/**
 * Reading the rows of `leaseAndViewSince` (queries.ts): the lease take and the session's view
 * since the cached `lastSeq` in one statement. The header and the new rows come from the
 * statement's snapshot, which may predate a writer whose commit the take waited for (the
 * previous holder appending its answer and releasing); part 3, read after the take by a
 * locking read, carries the session's latest `last_seq` and creation time. When they differ
 * from the header's, the rows are stale and the caller reads the view again.
 */
import type { Session, SessionKey } from '../../events/types.js';
import type { StoredView } from '../session-service.js';
import type { ViewCache } from '../view-cache.js';
import { headerStamp, type PostgresEventReader, type ViewRow } from './event-reader.js';

/** The rows of a take that succeeded, and the cached `lastSeq` they were read after. */
export interface TakeRows {
  rows: ViewRow[];
  /** `$4` of the statement: `undefined` when no view was cached (no event rows read). */
  afterSeq: number | undefined;
}

export type TakeView =
  /** The session does not exist (neither in the snapshot nor after the take). */
  | { kind: 'missing' }
  /** The rows cannot be used as they are: read the view after the take. */
  | { kind: 'read' }
  /** The header and the rows after `afterSeq`, current as of the take. */
  | { kind: 'current'; header: ViewRow; rows: ViewRow[] };

export function sessionFromTake(taken: TakeRows): TakeView {
  const { rows } = taken;
  const header = rows.find((row) => row.part === 0);
  const latest = rows.find((row) => row.part === 3);
  if (!header && !latest) return { kind: 'missing' };
  if (!header || !latest || taken.afterSeq === undefined) return { kind: 'read' };
  // Another last_seq or identity: something committed between the snapshot and the take.
  if (Number(latest.seq) !== Number(header.seq) || headerStamp(latest) !== headerStamp(header)) {
    return { kind: 'read' };
  }
  return { kind: 'current', header, rows: rows.filter((row) => row.part === 2) };
}

/**
 * The session from a take's rows: `missing` when it does not exist, `undefined` when they
 * cannot say (no cached view, a writer committed after the snapshot, a compaction among the
 * new rows): the caller then reads it.
 */
export function viewFromTake(options: {
  key: SessionKey;
  taken: TakeRows;
  views: ViewCache;
  reader: PostgresEventReader;
}): Session | 'missing' | undefined {
  const { key, taken, views, reader } = options;
  const found = sessionFromTake(taken);
  if (found.kind !== 'current') return found.kind === 'missing' ? 'missing' : undefined;
  const { header, rows } = found;
  const stamp = headerStamp(header);
  const cached = views.lookup(key, stamp, Number(header.seq));
  let view: StoredView | undefined;
  if (cached.kind === 'hit') view = cached.view;
  else if (cached.kind === 'behind' && cached.afterSeq === taken.afterSeq) {
    view = views.extend(key, stamp, reader.parseRows(rows, key), Number(header.seq));
  }
  if (!view) return undefined;
  const events = view.checkpoint ? [view.checkpoint, ...view.tail] : view.tail;
  return { ...key, ...reader.readHeader(header), events };
}
