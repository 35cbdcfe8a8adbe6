/**
 * `appendEventAndReleaseLease` on SQLite: the event appended and the lease's row deleted in one
 * write, one savepoint of the turn's shared commit (write-queue.ts), where the release alone
 * was one more write and one more commit a turn. A write that throws frees nothing (the caller
 * releases the lease as after a failed `appendEvent`). A lease with no row (`exclusive`: held in
 * process) is appended, then released.
 */
import type { Event } from '../../events/types.js';
import { releaseLeaseWith } from '../lease-helpers.js';
import type { AppendEventAndReleaseLeaseOptions, SessionService } from '../session-service.js';
import { assertValidNewEvent, assertValidSessionKey } from '../store-helpers.js';
import { releaseLeaseRow } from './lease.js';
import type { SqliteConnection } from './open-database.js';
import { type AppendedSqliteEvent, appendSqliteEvent } from './session-rows.js';

/** What the write needs of the service. */
export interface SqliteAppendAndReleaseContext {
  connection: SqliteConnection;
  /** `work` in the connection's write queue, as the service's own writes run. */
  write<T>(work: () => T): Promise<T>;
  /** A committed append, into the search backlog and the view cache (as `appendEvent`'s). */
  keepAppended(appended: AppendedSqliteEvent): void;
  /** The service's own `appendEvent`: the two-step path. */
  service: Pick<SessionService, 'appendEvent'>;
}

export async function appendAndReleaseSqlite(
  context: SqliteAppendAndReleaseContext,
  options: AppendEventAndReleaseLeaseOptions,
): Promise<Event> {
  assertValidSessionKey(options);
  assertValidNewEvent(options.event, { kind: 'event' });
  const { lease, signal } = options;
  const key = { appName: options.appName, userId: options.userId, sessionId: options.sessionId };
  const { database, statements } = context.connection;
  const appendAndFree = async () => {
    const written = await context.write(() => {
      const appended = appendSqliteEvent(statements, key, options.event);
      return { appended, freed: releaseLeaseRow(database, key, lease.leaseId) };
    });
    context.keepAppended(written.appended);
    return { value: written.appended.event, freed: written.freed };
  };
  const folded = await releaseLeaseWith(lease, appendAndFree);
  if (folded) return folded.value;
  const event = await context.service.appendEvent({ ...key, event: options.event, signal });
  await lease.release();
  return event;
}
