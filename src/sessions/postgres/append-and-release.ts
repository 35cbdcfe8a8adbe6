/**
 * `appendEventAndReleaseLease` on PostgreSQL: the lease released and the event appended in one
 * statement, one transaction (queries.ts: `appendAndRelease`), so a turn's last write and its
 * release are one round trip. A failed statement frees nothing (the caller releases the lease
 * as after a failed `appendEvent`); one whose answer was lost may have committed both, so it
 * is never sent again: its error goes to the caller, whose release is then a no-op.
 */
import type { Event } from '../../events/types.js';
import { releaseLeaseWith } from '../lease-helpers.js';
import type { AppendEventAndReleaseLeaseOptions, SessionService } from '../session-service.js';
import type { PostgresConnection } from './connection.js';
import { eventRowValues, type InsertedPostgresEvent, insertedFrom } from './event-writer.js';
import { keyParams, pickKey } from './key-and-errors.js';
import type { Queries } from './queries.js';
import type { PreparedEventRow } from './rows.js';
import type { SynchronousCommit } from './synchronous-commit.js';

/** What the statement needs of the service. */
export interface AppendAndReleaseContext {
  connection: PostgresConnection;
  queries: Queries;
  synchronousCommit?: SynchronousCommit;
  /** The service's own `appendEvent`: the two-step path. */
  service: Pick<SessionService, 'appendEvent'>;
  /** Keeps a committed append in the service's view cache. */
  keepAppended(inserted: InsertedPostgresEvent): void;
}

/**
 * The event appended and the lease released; `row` is the validated event's. An event that
 * writes app or user state (a transaction of several statements) and a lease that is not a
 * PostgreSQL record lease take two steps: `appendEvent`, then `release`.
 */
export async function appendAndRelease(
  context: AppendAndReleaseContext,
  options: AppendEventAndReleaseLeaseOptions,
  row: PreparedEventRow,
): Promise<Event> {
  const { connection, queries, synchronousCommit: commitMode } = context;
  const { lease, signal } = options;
  const key = pickKey(options);
  const statement = commitMode ? queries.appendAndReleaseWithCommitMode : queries.appendAndRelease;
  const appendAndFree = async () => {
    const rows = await connection.query<{ seq: string; created_at: number; released: string }>(
      key,
      signal,
      statement,
      [
        ...keyParams(key),
        Date.now() / 1000,
        ...eventRowValues(row),
        lease.leaseId,
        ...(commitMode ? [commitMode] : []),
      ],
      { operation: 'appendEvent', batched: true },
    );
    const inserted = insertedFrom(key, row, rows[0]);
    context.keepAppended(inserted);
    return { value: inserted.event, freed: Number(rows[0]?.released) === 1 };
  };
  const folded = row.touchesSharedState ? undefined : await releaseLeaseWith(lease, appendAndFree);
  if (folded) return folded.value;
  const event = await context.service.appendEvent({ ...key, event: options.event, signal });
  await lease.release();
  return event;
}
