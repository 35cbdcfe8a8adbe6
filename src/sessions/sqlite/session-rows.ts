/**
 * The SQLite store's session rows: an event appended (seq, session state, shared state in one
 * transaction), the state columns read back, a row as a `Session` (docs/architecture.md,
 * Storage). Every function runs inside the caller's transaction.
 */
import { InvalidEventError } from '../../events/errors.js';
import type { Event, NewEvent, Session, SessionKey } from '../../events/types.js';
import { SessionNotFoundError, SessionStoreError } from '../errors.js';
import { mergeState, splitState, toStoredEventWithJson } from '../store-helpers.js';
import type { SessionRow, SharedStateColumns, SqliteStatements } from './statements.js';

function now(): number {
  return Date.now() / 1000;
}

/**
 * The event's row: its columns, and `json`, its body without `seq` (the column holds it). Shared
 * by appends and imports.
 */
export function insertEventRow(options: {
  statements: SqliteStatements;
  key: SessionKey;
  event: Event;
  json: string;
}): void {
  const { key, event } = options;
  const compaction = event.actions.compaction;
  options.statements.insertEvent.run(
    key.appName,
    key.userId,
    key.sessionId,
    event.seq,
    event.id,
    event.invocationId,
    event.author,
    event.timestamp,
    compaction ? 1 : 0,
    compaction?.startSeq ?? null,
    compaction?.endSeq ?? null,
    options.json,
  );
}

/** `input` as stored (seq still 0) and its row's JSON; a value JSON cannot hold is refused. */
function storedWithJson(input: NewEvent): { event: Event; json: string } {
  try {
    const { event, bodyJson } = toStoredEventWithJson(input, 0);
    return { event, json: bodyJson };
  } catch (error) {
    throw new InvalidEventError({
      path: 'event',
      message: `is not JSON-serializable: ${(error as Error).message}`,
      cause: error,
    });
  }
}

/** Stores `input` with the next seq after `row` (read in this transaction) and applies its state delta. */
export function insertSqliteEvent(
  statements: SqliteStatements,
  key: SessionKey,
  row: SessionRow,
  input: NewEvent,
): { event: Event; json: string } {
  const { event, json } = storedWithJson(input);
  const seq = row.last_seq + 1;
  event.seq = seq;
  insertEventRow({ statements, key, event, json });
  const parts = splitState(event.actions.stateDelta);
  let state = row.state;
  if (Object.keys(parts.session).length > 0) {
    state = JSON.stringify({ ...parseStoredState(row.state, key.sessionId), ...parts.session });
  }
  const time = Math.max(now(), row.updated_at);
  statements.updateSession.run(state, seq, time, key.appName, key.userId, key.sessionId);
  writeSharedState(statements, key, parts.app, parts.user, time);
  return { event, json };
}

/** What `appendSqliteEvent` stored: the event, its row's JSON, the session's identity. */
export interface AppendedSqliteEvent {
  event: Event;
  /** The row's JSON (without `seq`). */
  json: string;
  /** The session's `created_at` (the view cache's stamp). */
  createdAt: number;
}

/**
 * Appends `input` (not a compaction) in the caller's write transaction. An event without
 * session-state keys takes its seq from one `UPDATE ... RETURNING` of the session row (no
 * separate read of it); one with session state reads the row to merge into it. A missing
 * session is a `SessionNotFoundError`.
 */
export function appendSqliteEvent(
  statements: SqliteStatements,
  key: SessionKey,
  input: NewEvent,
): AppendedSqliteEvent {
  const delta = input.actions?.stateDelta;
  const sessionState = delta !== undefined && Object.keys(splitState(delta).session).length > 0;
  if (sessionState) {
    const row = statements.selectSession.get(key.appName, key.userId, key.sessionId);
    if (!row) throw new SessionNotFoundError(key);
    const { event, json } = insertSqliteEvent(statements, key, row, input);
    return { event, json, createdAt: row.created_at };
  }
  const { event, json } = storedWithJson(input);
  const advanced = statements.advanceSession.get(now(), key.appName, key.userId, key.sessionId);
  if (!advanced) throw new SessionNotFoundError(key);
  event.seq = advanced.last_seq;
  insertEventRow({ statements, key, event, json });
  const parts = splitState(event.actions.stateDelta);
  writeSharedState(statements, key, parts.app, parts.user, advanced.updated_at);
  return { event, json, createdAt: advanced.created_at };
}

/** A stored state column as an object; a corrupt one is a `SessionStoreError`. */
export function parseStoredState(
  text: string,
  sessionId: string,
  scope = 'session',
): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch (error) {
    throw new SessionStoreError({
      message: `Corrupted ${scope} state of session '${sessionId}': ${(error as Error).message}`,
      sessionId,
      cause: error,
    });
  }
  throw new SessionStoreError({
    message: `Corrupted ${scope} state of session '${sessionId}': not a JSON object`,
    sessionId,
  });
}

/** Merges the `app:` and `user:` parts of a state delta into their rows. */
export function writeSharedState(
  statements: SqliteStatements,
  key: SessionKey,
  app: Record<string, unknown>,
  user: Record<string, unknown>,
  time: number,
): void {
  if (Object.keys(app).length > 0) {
    const current = statements.selectAppState.get(key.appName)?.state ?? '{}';
    const merged = { ...parseStoredState(current, key.sessionId, 'app'), ...app };
    statements.upsertAppState.run(key.appName, JSON.stringify(merged), time);
  }
  if (Object.keys(user).length > 0) {
    const current = statements.selectUserState.get(key.appName, key.userId)?.state ?? '{}';
    const merged = { ...parseStoredState(current, key.sessionId, 'user'), ...user };
    statements.upsertUserState.run(key.appName, key.userId, JSON.stringify(merged), time);
  }
}

/** A session row, its shared state and `events` as a `Session`. */
export function toSqliteSession(
  statements: SqliteStatements,
  row: SessionRow & Partial<SharedStateColumns>,
  events: Event[],
): Session {
  // Read with the row (`selectSessionWithState`), or here.
  const appState =
    row.app_state !== undefined
      ? (row.app_state ?? '{}')
      : (statements.selectAppState.get(row.app_name)?.state ?? '{}');
  const userState =
    row.user_state !== undefined
      ? (row.user_state ?? '{}')
      : (statements.selectUserState.get(row.app_name, row.user_id)?.state ?? '{}');
  const state = mergeState({
    session: parseStoredState(row.state, row.id),
    user: parseStoredState(userState, row.id, 'user'),
    app: parseStoredState(appState, row.id, 'app'),
  });
  return {
    appName: row.app_name,
    userId: row.user_id,
    sessionId: row.id,
    state,
    lastUpdateTime: row.updated_at,
    events,
  };
}
