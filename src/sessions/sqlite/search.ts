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
import {
  asksAboutChanges,
  boostChanges,
  type QueryTerm,
  queryTerms,
  type SearchLanguage,
} from '../query-terms.js';
import type { ResolvedSearch } from '../search-text.js';
import type { SearchHit } from '../session-service.js';
import { type RowReadOptions, readRow } from './read-rows.js';
import type { EventRow } from './statements.js';

/** Field skips of `eventSearchText`, in `json_tree` terms (`path` is the parent's path). */
function projection(row: string): string {
  return `(SELECT group_concat(atom, ' ') FROM json_tree(${row}.event, '$.content')
    WHERE type IN ('text', 'integer', 'real')
      AND (key IS NULL OR key NOT IN ('thoughtSignature', 'mimeType'))
      AND NOT (key = 'role' AND path = '$.content')
      AND NOT (key = 'id' AND (path LIKE '%.functionCall' OR path LIKE '%.functionResponse'))
      AND NOT (key = 'data' AND path LIKE '%.inlineData'))`;
}

/** The indexed text of a row (`new` or `old` in a trigger), NULL when it is not indexed. */
function body(row: string): string {
  return `CASE WHEN ${row}.is_compaction = 0 AND json_valid(${row}.event) THEN ${projection(row)} END`;
}

/** Removes a row from the index, or from the pending list when it is not indexed yet. */
function unindex(row: string): string {
  return `INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', ${row}.rowid, text FROM (SELECT ${body(row)} AS text)
      WHERE text IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events_search_pending WHERE event_rowid = ${row}.rowid);
    DELETE FROM events_search_pending WHERE event_rowid = ${row}.rowid;`;
}

/**
 * Indexes the pending events and empties the list. `LIMIT -1` keeps SQLite from flattening the
 * subquery, which would compute each text twice (for `IS NOT NULL` and for the insert).
 */
const flushSql = `INSERT INTO events_search (rowid, body)
      SELECT event_rowid, text FROM (
        SELECT rowid AS event_rowid, ${body('events')} AS text FROM events
        WHERE rowid IN (SELECT event_rowid FROM events_search_pending) LIMIT -1)
      WHERE text IS NOT NULL;
    DELETE FROM events_search_pending`;

/**
 * The migration that adds search to a database (and indexes the events already there). The
 * triggers compute the text from the row at hand (no second read of it); the view gives FTS5
 * the same text as its external content.
 */
export const SQLITE_SEARCH_MIGRATION_SQL = `
  CREATE VIEW events_search_source AS
    SELECT event_rowid, body FROM (
      SELECT rowid AS event_rowid, ${body('events')} AS body FROM events
    ) WHERE body IS NOT NULL;
  CREATE VIRTUAL TABLE events_search USING fts5(
    body,
    content = 'events_search_source',
    content_rowid = 'event_rowid',
    tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
    INSERT INTO events_search (rowid, body)
      SELECT new.rowid, text FROM (SELECT ${body('new')} AS text) WHERE text IS NOT NULL;
  END;
  CREATE TRIGGER events_search_delete BEFORE DELETE ON events BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', old.rowid, text FROM (SELECT ${body('old')} AS text) WHERE text IS NOT NULL;
  END;
  CREATE TRIGGER events_search_update_before BEFORE UPDATE ON events BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', old.rowid, text FROM (SELECT ${body('old')} AS text) WHERE text IS NOT NULL;
  END;
  CREATE TRIGGER events_search_update_after AFTER UPDATE ON events BEGIN
    INSERT INTO events_search (rowid, body)
      SELECT new.rowid, text FROM (SELECT ${body('new')} AS text) WHERE text IS NOT NULL;
  END;
  INSERT INTO events_search (rowid, body) SELECT event_rowid, body FROM events_search_source;
`;

/** Events appended are indexed in batches of this many (see the batch migration). */
export const SQLITE_SEARCH_BATCH = 256;

/**
 * Migration 5: events are indexed in batches, not one by one. Each append transaction that
 * wrote to FTS5 flushed its pending terms as a new segment (append 3.1x the cost without the
 * index); now the insert trigger only records the rowid in `events_search_pending`, and every
 * `SQLITE_SEARCH_BATCH`th rowid indexes the pending events in one statement (one segment).
 * `flushSqliteSearch` indexes the rest before every search, so a search still finds every event
 * appended before it. A pending event is not in the index yet: a delete or update removes it
 * from the pending list instead (an FTS5 'delete' of a row it never had corrupts the index).
 */
export const SQLITE_SEARCH_BATCH_MIGRATION_SQL = `
  CREATE TABLE events_search_pending (event_rowid INTEGER PRIMARY KEY);
  DROP TRIGGER events_search_insert;
  DROP TRIGGER events_search_delete;
  DROP TRIGGER events_search_update_before;
  DROP TRIGGER events_search_update_after;
  CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
    INSERT OR IGNORE INTO events_search_pending (event_rowid) VALUES (new.rowid);
  END;
  CREATE TRIGGER events_search_delete BEFORE DELETE ON events BEGIN
    ${unindex('old')}
  END;
  CREATE TRIGGER events_search_update_before BEFORE UPDATE ON events BEGIN
    ${unindex('old')}
  END;
  CREATE TRIGGER events_search_update_after AFTER UPDATE ON events BEGIN
    INSERT OR IGNORE INTO events_search_pending (event_rowid) VALUES (new.rowid);
  END;
  CREATE TRIGGER events_search_batch AFTER INSERT ON events_search_pending
    WHEN new.event_rowid % ${SQLITE_SEARCH_BATCH} = 0 BEGIN
    ${flushSql};
  END;
  ${flushSql};
`;

interface SearchRow extends EventRow {
  session_id: string;
}

interface Candidate {
  rowid: number;
  rank: number;
}

interface SearchStatements {
  candidates: BetterSqlite3.Statement<unknown[], Candidate>;
  row: BetterSqlite3.Statement<unknown[], SearchRow>;
  pending: BetterSqlite3.Statement<unknown[], unknown>;
}

const prepared = new WeakMap<BetterSqlite3.Database, SearchStatements>();

function searchStatements(database: BetterSqlite3.Database): SearchStatements {
  let statements = prepared.get(database);
  if (!statements) {
    statements = {
      // The index alone, best first (bm25: lower is better). Joining events here would read an
      // events row for every match before sorting (53 ms against 15 ms at 4k matches).
      candidates: database.prepare<unknown[], Candidate>(
        'SELECT rowid, rank FROM events_search WHERE events_search MATCH ? ORDER BY rank LIMIT ?',
      ),
      row: database.prepare<unknown[], SearchRow>(
        `SELECT session_id, seq, is_compaction, compaction_start_seq, compaction_end_seq, event
         FROM events WHERE rowid = ? AND app_name = ? AND user_id = ?
           AND (? IS NULL OR session_id = ?) AND seq > ? AND seq < ?
           AND (? IS NULL OR timestamp > ?) AND (? IS NULL OR timestamp < ?)
           AND (? IS NULL OR author IN (SELECT value FROM json_each(?)))`,
      ),
      pending: database.prepare('SELECT 1 FROM events_search_pending LIMIT 1'),
    };
    prepared.set(database, statements);
  }
  return statements;
}

/**
 * The terms as an FTS5 query, OR-ed: a word a quoted string (so `AND`, `NEAR`, `*`, `:` are
 * words), a prefix `"edit" *`, a phrase `"foo ex"` (its words in order). Terms hold only letters,
 * digits and marks (query-terms.ts), so no quote needs escaping.
 */
export function toFtsQuery(terms: readonly QueryTerm[]): string {
  return terms
    .map((term) =>
      term.kind === 'word'
        ? `"${term.text}"`
        : term.kind === 'prefix'
          ? `"${term.text}" *`
          : `"${term.parts.join(' ')}"`,
    )
    .join(' OR ');
}

/** First round of candidates per hit asked for; each further round takes 8 times more. */
const CANDIDATES_PER_HIT = 8;

/**
 * Runs inside the caller's read transaction; rows are checked like every other read. The best
 * matches come from the index alone, then are kept if they belong to the user's session and
 * seq range; when too few are kept (other users' or later events ranked above), the next round
 * reads 8 times as many candidates, until the index has no more.
 */
export function searchSqliteEvents(options: {
  database: BetterSqlite3.Database;
  search: ResolvedSearch;
  rowOptions: (sessionId: string) => RowReadOptions;
  language?: SearchLanguage;
}): SearchHit[] {
  const { search } = options;
  const terms = queryTerms(search.query, { language: options.language });
  if (terms.length === 0) return [];
  // A question about changes reads more hits, so an edit ranked lower can rise (query-terms.ts).
  const boost = asksAboutChanges(search.query);
  const wantedHits = boost ? search.limit * 3 : search.limit;
  const done = (hits: SearchHit[]) => (boost ? boostChanges(hits, search.limit) : hits);
  const statements = searchStatements(options.database);
  const query = toFtsQuery(terms);
  const sessionId = search.sessionId ?? null;
  // Infinite bounds (none given) as NULL: SQLite has no infinity literal to bind.
  const after = Number.isFinite(search.after) ? search.after : null;
  const before = Number.isFinite(search.before) ? search.before : null;
  const authors = search.authors ? JSON.stringify(search.authors) : null;
  let wanted = Math.max(64, wantedHits * CANDIDATES_PER_HIT);
  for (;;) {
    const candidates = statements.candidates.all(query, wanted);
    const hits: SearchHit[] = [];
    for (const candidate of candidates) {
      const row = statements.row.get(
        candidate.rowid,
        search.appName,
        search.userId,
        sessionId,
        sessionId,
        search.afterSeq,
        search.beforeSeq,
        after,
        after,
        before,
        before,
        authors,
        authors,
      );
      if (!row) continue;
      const event = readRow(row, options.rowOptions(row.session_id));
      if (!event) continue;
      hits.push({
        event,
        sessionId: row.session_id,
        seq: row.seq,
        timestamp: event.timestamp,
        author: event.author,
        score: -candidate.rank,
      });
      if (hits.length === wantedHits) return done(hits);
    }
    if (candidates.length < wanted) return done(hits);
    wanted *= CANDIDATES_PER_HIT;
  }
}

/** Whether appended events wait to be indexed (read before a search, see `flushSqliteSearch`). */
export function hasPendingSearchRows(database: BetterSqlite3.Database): boolean {
  return searchStatements(database).pending.get() !== undefined;
}

/** Indexes the events appended since the last batch; run in a write transaction. */
export function flushSqliteSearch(database: BetterSqlite3.Database): void {
  database.exec(flushSql);
}

/** Re-indexes every event (after a `VACUUM`, which may renumber the events' rowids). */
export function rebuildSqliteSearch(database: BetterSqlite3.Database): void {
  // Not FTS5's 'rebuild': it reads the source view schema-qualified, where json_tree is unknown.
  database
    .transaction(() => {
      database.exec(`INSERT INTO events_search (events_search) VALUES ('delete-all')`);
      database.exec('DELETE FROM events_search_pending');
      database.exec(
        'INSERT INTO events_search (rowid, body) SELECT event_rowid, body FROM events_search_source',
      );
    })
    .immediate();
}
