/**
 * `acquireLeaseAndAppend` on PostgreSQL: the lease taken, the event appended and the session's
 * view since the cached `lastSeq` read, in one statement (queries.ts: `leaseAndAppend`). The
 * append is guarded by the take in the same transaction: a lease not taken appends nothing, a
 * failed append takes no lease. The header and rows come from the statement's snapshot; part 3
 * is the append's own RETURNING (the appended seq and the session's creation time): when the
 * snapshot's `last_seq` is not the one just before it (a writer committed between the snapshot
 * and the take, e.g. the previous holder's answer), the view is read again after the statement.
 */
import type { Event, Session, SessionKey } from '../../events/types.js';
import type {
  AcquireLeaseAndAppendOptions,
  LeasedAppend,
  SessionService,
} from '../session-service.js';
import { headerStamp, type ViewRow } from './event-reader.js';
import { eventRowValues } from './event-writer.js';
import { keyParams } from './key-and-errors.js';
import { type LeaseContext, type TakeRows, viewFromTake } from './lease-and-view.js';
import type { PreparedEventRow } from './rows.js';
import type { SynchronousCommit } from './synchronous-commit.js';

/** What the take's statement left: its rows, the cached `lastSeq` it read after, the time. */
interface TakenAppend extends TakeRows {
  /** `Date.now() / 1000` as the statement's `updated_at` candidate. */
  now: number;
}

/** The statement's values: the key, `$4` the cached lastSeq, the take, then the append's. */
function takeValues(options: {
  key: SessionKey;
  afterSeq: number | undefined;
  leaseId: string;
  ttlMs: number;
  row: PreparedEventRow;
  now: number;
  commitMode?: SynchronousCommit;
}): unknown[] {
  return [
    ...keyParams(options.key),
    options.afterSeq ?? null,
    options.leaseId,
    options.ttlMs,
    options.now,
    ...eventRowValues(options.row),
    ...(options.commitMode ? [options.commitMode] : []),
  ];
}

/**
 * A failed take-and-append, carried past the lease's polling: a lost connection's error is
 * retryable, but the statement may have committed (the event stored, the lease held by this
 * holder), and trying it again would append the event twice. Not an `Error`: the polling
 * (lease-helpers.ts) tries again only a retryable `SessionStoreError`.
 */
class NotTriedAgain {
  constructor(readonly error: unknown) {}
}

/**
 * The lease, the appended event and the session after it (`row` has no app or user state: the
 * caller checked). `session` and `event` are `undefined` when the session does not exist (the
 * lease is held all the same; nothing was appended).
 */
export async function leaseAndAppend(
  context: LeaseContext,
  options: AcquireLeaseAndAppendOptions,
  row: PreparedEventRow,
): Promise<LeasedAppend> {
  const { connection, queries, views, reader, synchronousCommit: commitMode } = context;
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  const statement = commitMode ? queries.leaseAndAppendWithCommitMode : queries.leaseAndAppend;
  let taken: TakenAppend | undefined;
  const take = async (leaseId: string, ttlMs: number) => {
    const afterSeq = views.peekLastSeq(key);
    const now = Date.now() / 1000;
    let rows: ViewRow[];
    try {
      rows = await connection.query<ViewRow>(
        key,
        options.signal,
        statement,
        takeValues({ key, afterSeq, leaseId, ttlMs, row, now, commitMode }),
        { operation: 'acquireLease', batched: true },
      );
    } catch (error) {
      throw new NotTriedAgain(error);
    }
    if (rows[0]?.part !== -1) return false;
    taken = { rows, afterSeq, now };
    return true;
  };
  const lease = await context.acquire(take).catch((error: unknown) => {
    throw error instanceof NotTriedAgain ? error.error : error;
  });
  try {
    const appendedRow = taken?.rows.find((found) => found.part === 3);
    // Taken, but no session row to append to: the session does not exist.
    if (!taken || !appendedRow) return { lease, session: undefined, event: undefined };
    const seq = Number(appendedRow.seq);
    const stamp = headerStamp(appendedRow);
    const event = { ...row.values.stored, seq } as Event;
    // The cache and the session get their own copy, parsed from the row's JSON.
    const copy = () => Object.assign(JSON.parse(row.values.json) as Event, { seq });
    // The snapshot as of just before the append (part 3 one seq back), when it was.
    const before = viewFromTake({
      key,
      taken: {
        afterSeq: taken.afterSeq,
        rows: taken.rows.map((found) => (found.part === 3 ? { ...found, seq: seq - 1 } : found)),
      },
      views,
      reader,
    });
    if (before && before !== 'missing') {
      const appended = copy();
      views.appended(key, stamp, appended);
      const session: Session = {
        ...before,
        lastUpdateTime: Math.max(before.lastUpdateTime, taken.now),
        events: [...before.events, appended],
      };
      return { lease, session, event };
    }
    if (views.peekLastSeq(key) === seq - 1) views.appended(key, stamp, copy());
    const session = await context.getSession(key, options.signal);
    return { lease, session, event: session ? event : undefined };
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/**
 * The two-step form, for an event with state writes (the one statement does not merge them
 * into the session it returns): the lease and view, the append, the view read again.
 */
export async function leaseThenAppend(
  service: Required<Pick<SessionService, 'acquireLeaseAndGetSession'>> &
    Pick<SessionService, 'appendEvent' | 'getSession'>,
  options: AcquireLeaseAndAppendOptions,
): Promise<LeasedAppend> {
  const { event: newEvent, signal, ...leaseOptions } = options;
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  const leased = await service.acquireLeaseAndGetSession({ ...leaseOptions, signal });
  if (!leased.session) return { ...leased, event: undefined };
  try {
    const event = await service.appendEvent({ ...key, event: newEvent, signal });
    const session = await service.getSession({ ...key, signal });
    return { lease: leased.lease, session, event };
  } catch (error) {
    await leased.lease.release();
    throw error;
  }
}
