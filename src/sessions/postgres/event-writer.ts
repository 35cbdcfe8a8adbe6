/**
 * The PostgreSQL store's append path: one statement allocates the seq and inserts the event,
 * then the app and user state are merged (docs/architecture.md, Storage).
 */
import type { PoolClient } from 'pg';
import type { Event, SessionKey } from '../../events/types.js';
import { SessionNotFoundError } from '../errors.js';
import type { splitState } from '../store-helpers.js';
import { keyParams } from './key-and-errors.js';
import { type Queries, withValues } from './queries.js';
import type { PreparedEventRow } from './rows.js';
import { postgresSearchText } from './search-column.js';
import type { SynchronousCommit } from './synchronous-commit.js';

export interface InsertPostgresEventOptions {
  client: PoolClient;
  queries: Queries;
  key: SessionKey;
  row: PreparedEventRow;
  /** Set when the statement is its own transaction: it sets the commit mode itself. */
  commitMode?: SynchronousCommit;
}

/** What an insert stored: the event, its row's JSON, the session's creation time (its identity). */
export interface InsertedPostgresEvent {
  event: Event;
  json: string;
  createdAt: number;
}

/**
 * The append statement's values after the key and the time (appendParts in queries.ts): the
 * session's state, the event's columns, its JSON and its search text.
 */
export function eventRowValues(row: PreparedEventRow): unknown[] {
  const { values, scoped } = row;
  const stored = values.stored;
  return [
    JSON.stringify(scoped.session),
    stored.id,
    stored.invocationId,
    stored.author,
    stored.timestamp,
    values.isCompaction,
    values.compactionStartSeq,
    values.compactionEndSeq,
    values.json,
    postgresSearchText(stored, values.json),
  ];
}

/** Inserts the event with the next seq; `SessionNotFoundError` when the session is missing. */
export async function insertPostgresEvent(
  options: InsertPostgresEventOptions,
): Promise<InsertedPostgresEvent> {
  const { client, queries, key, commitMode } = options;
  const { values, scoped } = options.row;
  const stored = values.stored;
  const now = Date.now() / 1000;
  const statement = commitMode ? queries.appendEventWithCommitMode : queries.appendEvent;
  const inserted = await client.query<{ seq: string; created_at: number }>(
    withValues(statement, [
      ...keyParams(key),
      now,
      ...eventRowValues(options.row),
      ...(commitMode ? [commitMode] : []),
    ]),
  );
  const insertedRow = inserted.rows[0];
  if (!insertedRow) throw new SessionNotFoundError(key);
  // Session row first, then app, then user: one lock order for every writer (no deadlock).
  await upsertScopedState({ client, queries, key, scoped, now });
  return {
    event: { ...stored, seq: Number(insertedRow.seq) } as Event,
    json: values.json,
    createdAt: insertedRow.created_at,
  };
}

/** Merges the `app:` and `user:` parts of a state delta into their rows. */
export async function upsertScopedState(options: {
  client: PoolClient;
  queries: Queries;
  key: SessionKey;
  scoped: ReturnType<typeof splitState>;
  now: number;
}): Promise<void> {
  const { client, queries, key, scoped, now } = options;
  if (Object.keys(scoped.app).length > 0) {
    await client.query(queries.upsertAppState, [key.appName, JSON.stringify(scoped.app), now]);
  }
  if (Object.keys(scoped.user).length > 0) {
    await client.query(queries.upsertUserState, [
      key.appName,
      key.userId,
      JSON.stringify(scoped.user),
      now,
    ]);
  }
}
