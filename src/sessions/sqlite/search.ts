/**
 * History search for the SQLite store: an FTS5 index (`events_search`) over a text projection
 * of each event (`events_search_source`: every string and number under `content`, as
 * `eventSearchText` in search-text.ts reads it), ranked by BM25. External content: the text is
 * not stored twice, the index is kept in step by triggers on `events`, so every writer (append,
 * compaction, a whole-session import on its own connection, delete) keeps it current.
 *
 * Rowids: `events` has no INTEGER PRIMARY KEY, so a `VACUUM` may renumber its rows; run
 * `rebuildSqliteSearch(database)` after one.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { type ResolvedSearch, searchTerms } from '../search-text.js';
import type { SearchHit } from '../session-service.js';
import { type RowReadOptions, readRow } from './read-rows.js';
import type { EventRow } from './statements.js';

/** Field skips of `eventSearchText`, in `json_tree` terms (`path` is the parent's path). */
const projection = `(SELECT group_concat(atom, ' ') FROM json_tree(events.event, '$.content')
  WHERE type IN ('text', 'integer', 'real')
    AND (key IS NULL OR key NOT IN ('thoughtSignature', 'mimeType'))
    AND NOT (key = 'role' AND path = '$.content')
    AND NOT (key = 'id' AND (path LIKE '%.functionCall' OR path LIKE '%.functionResponse'))
    AND NOT (key = 'data' AND path LIKE '%.inlineData'))`;

/** The migration that adds search to a database (and indexes the events already there). */
export const SQLITE_SEARCH_MIGRATION_SQL = `
  CREATE VIEW events_search_source AS
    SELECT event_rowid, body FROM (
      SELECT rowid AS event_rowid,
        CASE WHEN is_compaction = 0 AND json_valid(event) THEN ${projection} END AS body
      FROM events
    ) WHERE body IS NOT NULL;
  CREATE VIRTUAL TABLE events_search USING fts5(
    body,
    content = 'events_search_source',
    content_rowid = 'event_rowid',
    tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
    INSERT INTO events_search (rowid, body)
      SELECT event_rowid, body FROM events_search_source WHERE event_rowid = new.rowid;
  END;
  CREATE TRIGGER events_search_delete BEFORE DELETE ON events BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', event_rowid, body FROM events_search_source WHERE event_rowid = old.rowid;
  END;
  CREATE TRIGGER events_search_update_before BEFORE UPDATE ON events BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', event_rowid, body FROM events_search_source WHERE event_rowid = old.rowid;
  END;
  CREATE TRIGGER events_search_update_after AFTER UPDATE ON events BEGIN
    INSERT INTO events_search (rowid, body)
      SELECT event_rowid, body FROM events_search_source WHERE event_rowid = new.rowid;
  END;
  INSERT INTO events_search (rowid, body) SELECT event_rowid, body FROM events_search_source;
`;

interface SearchRow extends EventRow {
  session_id: string;
  score: number;
}

const statements = new WeakMap<
  BetterSqlite3.Database,
  BetterSqlite3.Statement<unknown[], SearchRow>
>();

function searchStatement(database: BetterSqlite3.Database) {
  let statement = statements.get(database);
  if (!statement) {
    // bm25() is lower-is-better; the hit's score is its negation (higher is better).
    statement = database.prepare<unknown[], SearchRow>(
      `SELECT e.session_id, e.seq, e.is_compaction, e.compaction_start_seq, e.compaction_end_seq,
         e.event, -bm25(events_search) AS score
       FROM events_search JOIN events e ON e.rowid = events_search.rowid
       WHERE events_search MATCH ? AND e.app_name = ? AND e.user_id = ?
         AND (? IS NULL OR e.session_id = ?) AND e.seq > ? AND e.seq < ?
       ORDER BY bm25(events_search), e.seq DESC LIMIT ?`,
    );
    statements.set(database, statement);
  }
  return statement;
}

/**
 * The terms as an FTS5 query: each one a quoted string (so `AND`, `NEAR`, `*`, `:` are words),
 * OR-ed. Terms hold only letters, digits and marks (search-text.ts), so no quote needs escaping.
 */
export function toFtsQuery(terms: readonly string[]): string {
  return terms.map((term) => `"${term}"`).join(' OR ');
}

/** Runs inside the caller's read transaction; rows are checked like every other read. */
export function searchSqliteEvents(options: {
  database: BetterSqlite3.Database;
  search: ResolvedSearch;
  rowOptions: (sessionId: string) => RowReadOptions;
}): SearchHit[] {
  const { search } = options;
  const terms = searchTerms(search.query);
  if (terms.length === 0) return [];
  const sessionId = search.sessionId ?? null;
  const rows = searchStatement(options.database).all(
    toFtsQuery(terms),
    search.appName,
    search.userId,
    sessionId,
    sessionId,
    search.afterSeq,
    search.beforeSeq,
    search.limit,
  );
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const event = readRow(row, options.rowOptions(row.session_id));
    if (!event) continue;
    hits.push({
      event,
      sessionId: row.session_id,
      seq: row.seq,
      timestamp: event.timestamp,
      author: event.author,
      score: row.score,
    });
  }
  return hits;
}

/** Re-indexes every event (after a `VACUUM`, which may renumber the events' rowids). */
export function rebuildSqliteSearch(database: BetterSqlite3.Database): void {
  // Not FTS5's 'rebuild': it reads the source view schema-qualified, where json_tree is unknown.
  database
    .transaction(() => {
      database.exec(`INSERT INTO events_search (events_search) VALUES ('delete-all')`);
      database.exec(
        'INSERT INTO events_search (rowid, body) SELECT event_rowid, body FROM events_search_source',
      );
    })
    .immediate();
}
