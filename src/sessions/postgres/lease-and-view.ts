/**
 * Reading the rows of `leaseAndViewSince` (queries.ts): the lease take and the session's view
 * since the cached `lastSeq` in one statement. The header and the new rows come from the
 * statement's snapshot, which may predate a writer whose commit the take waited for (the
 * previous holder appending its answer and releasing); part 3, read after the take by a
 * locking read, carries the session's latest `last_seq` and creation time. When they differ
 * from the header's, the rows are stale and the caller reads the view again.
 */
import type { Session, SessionKey } from '../../events/types.js';
import type {
  AcquireLeaseOptions,
  LeasedSession,
  SessionLease,
  StoredView,
} from '../session-service.js';
import type { ViewCache } from '../view-cache.js';
import type { PostgresConnection } from './connection.js';
import { headerStamp, type PostgresEventReader, type ViewRow } from './event-reader.js';
import { keyParams, pickKey } from './key-and-errors.js';
import type { Queries } from './queries.js';
import type { SynchronousCommit } from './synchronous-commit.js';

/** What a take that reads the view (and may append) needs of the service. */
export interface LeaseContext {
  connection: PostgresConnection;
  queries: Queries;
  views: ViewCache;
  reader: PostgresEventReader;
  synchronousCommit?: SynchronousCommit;
  /** The lease, taken with `take` in place of the plain take statement (lease.ts). */
  acquire(take: (leaseId: string, ttlMs: number) => Promise<boolean>): Promise<SessionLease>;
  /** The view-mode `getSession` (after the statement, when its rows cannot be used). */
  getSession(key: SessionKey, signal: AbortSignal | undefined): Promise<Session | undefined>;
}

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

/**
 * The lease and the session's view in one statement when the service holds the view
 * (`leaseAndViewSince`: the take, then the rows appended since, plus a check that nothing
 * committed between the statement's snapshot and the take); otherwise, or when that check
 * fails, the view is read after the take as `getSession` reads it.
 */
export async function leaseAndView(
  context: LeaseContext,
  options: AcquireLeaseOptions,
): Promise<LeasedSession> {
  const { connection, queries, views, reader } = context;
  const key = pickKey(options);
  let taken: TakeRows | undefined;
  const afterSeq = views.peekLastSeq(key);
  const lease = await context.acquire(async (leaseId, ttlMs) => {
    const rows = await connection.query<ViewRow>(
      key,
      options.signal,
      queries.leaseAndViewSince,
      [...keyParams(key), afterSeq ?? null, leaseId, ttlMs],
      { operation: 'acquireLease', batched: true },
    );
    if (rows[0]?.part !== -1) return false;
    taken = { rows, afterSeq };
    return true;
  });
  try {
    const read = taken && viewFromTake({ key, taken, views, reader });
    if (read === 'missing') return { lease, session: undefined };
    const session = read ?? (await context.getSession(key, options.signal));
    return { lease, session };
  } catch (error) {
    await lease.release();
    throw error;
  }
}
