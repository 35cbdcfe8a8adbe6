/**
 * The PostgreSQL store's append path: one statement allocates the seq and inserts the event,
 * then the app and user state are merged (docs/architecture.md, Storage).
 */
import type { PoolClient } from 'pg';
import type { Event, SessionKey } from '../../events/types.js';
import { SessionNotFoundError } from '../errors.js';
import type { splitState } from '../store-helpers.js';
import type { PostgresConnection } from './connection.js';
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

/** The append statement's values: the key, the time, the event's ($15: the commit mode). */
function appendValues(
  key: SessionKey,
  row: PreparedEventRow,
  now: number,
  commitMode: SynchronousCommit | undefined,
): unknown[] {
  return [...keyParams(key), now, ...eventRowValues(row), ...(commitMode ? [commitMode] : [])];
}

/** What an append stored, from its RETURNING row; `SessionNotFoundError` without one. */
export function insertedFrom(
  key: SessionKey,
  row: PreparedEventRow,
  inserted: { seq: string; created_at: number } | undefined,
): InsertedPostgresEvent {
  if (!inserted) throw new SessionNotFoundError(key);
  const values = row.values;
  return {
    event: { ...values.stored, seq: Number(inserted.seq) } as Event,
    json: values.json,
    createdAt: inserted.created_at,
  };
}

/**
 * Inserts the event with the next seq in a transaction the caller opened, then merges its app
 * and user state; `SessionNotFoundError` when the session is missing.
 */
export async function insertPostgresEvent(
  options: InsertPostgresEventOptions,
): Promise<InsertedPostgresEvent> {
  const { client, queries, key } = options;
  const now = Date.now() / 1000;
  const inserted = await client.query<{ seq: string; created_at: number }>(
    withValues(queries.appendEvent, appendValues(key, options.row, now, undefined)),
  );
  const stored = insertedFrom(key, options.row, inserted.rows[0]);
  // Session row first, then app, then user: one lock order for every writer (no deadlock).
  await upsertScopedState({ client, queries, key, scoped: options.row.scoped, now });
  return stored;
}

/**
 * An event without app or user state appended by one auto-committed statement (its own
 * transaction, so it sets the commit mode itself), which may share its Query and commit with
 * other sessions' statements of this event-loop turn (statement-batch.ts).
 */
export async function appendPostgresEvent(options: {
  connection: PostgresConnection;
  queries: Queries;
  key: SessionKey;
  row: PreparedEventRow;
  commitMode: SynchronousCommit | undefined;
  signal: AbortSignal | undefined;
}): Promise<InsertedPostgresEvent> {
  const { connection, queries, key, row, commitMode } = options;
  const statement = commitMode ? queries.appendEventWithCommitMode : queries.appendEvent;
  const rows = await connection.query<{ seq: string; created_at: number }>(
    key,
    options.signal,
    statement,
    appendValues(key, row, Date.now() / 1000, commitMode),
    { operation: 'appendEvent', batched: true },
  );
  return insertedFrom(key, row, rows[0]);
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
