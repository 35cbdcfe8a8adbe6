/**
 * Every SQL statement the SQLite store runs, prepared once per connection. Each is scoped by
 * app and user; the view reads are one index probe (checkpoint) and one range scan (tail).
 */
import type BetterSqlite3 from 'better-sqlite3';

/** Named so declaration output can refer to it (the driver's namespace type cannot be). */
export interface SqliteStatement<Result> extends BetterSqlite3.Statement<unknown[], Result> {}

export interface SessionRow {
  app_name: string;
  user_id: string;
  id: string;
  state: string;
  last_seq: number;
  event_count: number;
  created_at: number;
  updated_at: number;
}

/** The app's and the user's shared state, read with the session row (`null`: none stored). */
export interface SharedStateColumns {
  app_state: string | null;
  user_state: string | null;
}

export interface EventRow {
  seq: number;
  is_compaction: number;
  compaction_start_seq: number | null;
  compaction_end_seq: number | null;
  event: string;
}

/** Read with every event: the JSON and the columns it is checked against. */
const eventColumns = 'seq, is_compaction, compaction_start_seq, compaction_end_seq, event';

/**
 * The range part of `isValidCompaction` (compaction/view.ts: `1 <= start <= end < seq`) as SQL,
 * so the checkpoint is one index probe; `ORDER BY compaction_end_seq DESC, seq DESC` below is
 * `isBetterCheckpoint`. Change them together. The row's JSON is checked against these columns
 * when read (read-rows.ts), and a row past the session's last seq is no candidate either.
 */
const validCompaction =
  'is_compaction = 1 AND compaction_start_seq >= 1 AND compaction_start_seq <= compaction_end_seq AND compaction_end_seq < seq';

const key = 'app_name = ? AND user_id = ?';
const sessionScope = `${key} AND session_id = ?`;

export function prepareStatements(database: BetterSqlite3.Database) {
  const prepare = <Result = unknown>(sql: string): SqliteStatement<Result> =>
    database.prepare<unknown[], Result>(sql) as SqliteStatement<Result>;
  return {
    selectSession: prepare<SessionRow>(`SELECT * FROM sessions WHERE ${key} AND id = ?`),
    /** The session row and both shared states in one statement (a view read's only probe). */
    selectSessionWithState: prepare<SessionRow & SharedStateColumns>(
      `SELECT s.*,
        (SELECT state FROM app_state a WHERE a.app_name = s.app_name) AS app_state,
        (SELECT state FROM user_state u WHERE u.app_name = s.app_name AND u.user_id = s.user_id) AS user_state
       FROM sessions s WHERE s.app_name = ? AND s.user_id = ? AND s.id = ?`,
    ),
    /** An append's seq: the session row advanced and read back in one statement. */
    advanceSession: prepare<{ last_seq: number; updated_at: number; created_at: number }>(
      `UPDATE sessions SET last_seq = last_seq + 1, event_count = event_count + 1,
        updated_at = max(updated_at, ?) WHERE ${key} AND id = ?
       RETURNING last_seq, updated_at, created_at`,
    ),
    insertSession: prepare(
      'INSERT INTO sessions (app_name, user_id, id, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    updateSession: prepare(
      `UPDATE sessions SET state = ?, last_seq = ?, event_count = event_count + 1, updated_at = ? WHERE ${key} AND id = ?`,
    ),
    listSessions: prepare<SessionRow>(
      `SELECT * FROM sessions WHERE ${key} ORDER BY updated_at DESC, id`,
    ),
    deleteSession: prepare(`DELETE FROM sessions WHERE ${key} AND id = ?`),
    deleteEvents: prepare(`DELETE FROM events WHERE ${sessionScope}`),
    insertEvent: prepare(
      `INSERT INTO events (app_name, user_id, session_id, seq, id, invocation_id, author, timestamp,
        is_compaction, compaction_start_seq, compaction_end_seq, event)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    /**
     * Valid compactions up to the session's last seq (the 4th parameter), best first: the first
     * row whose JSON agrees is the checkpoint (read lazily: normally only the first is read).
     * `+seq` keeps the planner on `events_checkpoints`: a plain `seq <= ?` made it range-scan
     * and sort the primary key, every event of the session (48 ms a turn at 100k events).
     */
    checkpoints: prepare<EventRow>(
      `SELECT ${eventColumns} FROM events WHERE ${sessionScope} AND ${validCompaction}
       AND +seq <= ? ORDER BY compaction_end_seq DESC, seq DESC`,
    ),
    tail: prepare<EventRow>(
      `SELECT ${eventColumns} FROM events WHERE ${sessionScope} AND seq > ? AND is_compaction = 0 ORDER BY seq`,
    ),
    pageAsc: prepare<EventRow>(
      `SELECT ${eventColumns} FROM events WHERE ${sessionScope} AND seq > ? AND seq < ? ORDER BY seq LIMIT ?`,
    ),
    pageDesc: prepare<EventRow>(
      `SELECT ${eventColumns} FROM events WHERE ${sessionScope} AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
    ),
    selectAppState: prepare<{ state: string }>('SELECT state FROM app_state WHERE app_name = ?'),
    upsertAppState: prepare(
      `INSERT INTO app_state (app_name, state, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (app_name) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    ),
    selectUserState: prepare<{ state: string }>(`SELECT state FROM user_state WHERE ${key}`),
    upsertUserState: prepare(
      `INSERT INTO user_state (app_name, user_id, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (app_name, user_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    ),
  };
}

export type SqliteStatements = ReturnType<typeof prepareStatements>;
