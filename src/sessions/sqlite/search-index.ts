/**
 * Keeping the SQLite store's search index (`events_search`, FTS5) in step with `events`: the
 * schema migrations that built it, the indexing of appended events, a full rebuild.
 *
 * The index is external content: FTS5 holds the terms of a text projection of each event
 * (`events_search_source`: every string and number under `content`, as `eventSearchText` in
 * search-text.ts reads it), not the text. Migration 6 (the current scheme): an append indexes
 * nothing. `events_search_state.indexed_through` is a watermark: the events with a rowid up to
 * it are indexed, those above it are not yet. SQLite gives a new row the largest rowid + 1
 * (`events` has no INTEGER PRIMARY KEY, rowids are never given explicitly), so the events
 * waiting to be indexed are exactly those above the watermark, found by a rowid range. They are
 * indexed by `indexPendingSearchEvents`: before every search (complete: a search finds every
 * event appended before it, by any connection), when the appending store is idle
 * (search-backlog.ts), at the end of an import. Deletes and updates keep the index exact by
 * triggers (below).
 *
 * Rowids: a `VACUUM` may renumber the events' rows; run `rebuildSqliteSearch(database)` after one.
 */
import type BetterSqlite3 from 'better-sqlite3';

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

/** Migration 5's batch size (kept for that migration; migration 6 replaced its scheme). */
const PENDING_TABLE_BATCH = 256;

/** Removes a row from the index, or from migration 5's pending list when it is not indexed yet. */
function unindexPendingTable(row: string): string {
  return `INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', ${row}.rowid, text FROM (SELECT ${body(row)} AS text)
      WHERE text IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM events_search_pending WHERE event_rowid = ${row}.rowid);
    DELETE FROM events_search_pending WHERE event_rowid = ${row}.rowid;`;
}

/**
 * Indexes migration 5's pending events and empties its list. `LIMIT -1` keeps SQLite from
 * flattening the subquery, which would compute each text twice (`IS NOT NULL`, the insert).
 */
const pendingTableFlushSql = `INSERT INTO events_search (rowid, body)
      SELECT event_rowid, text FROM (
        SELECT rowid AS event_rowid, ${body('events')} AS text FROM events
        WHERE rowid IN (SELECT event_rowid FROM events_search_pending) LIMIT -1)
      WHERE text IS NOT NULL;
    DELETE FROM events_search_pending`;

/**
 * Migration 5: events indexed in batches, not one by one (each append transaction that wrote
 * to FTS5 flushed its terms as a new segment: append 3.1x the cost without the index). The
 * insert trigger recorded the rowid in `events_search_pending`, every 256th rowid indexed the
 * pending events in one statement, a search indexed the rest first. Replaced by migration 6.
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
    ${unindexPendingTable('old')}
  END;
  CREATE TRIGGER events_search_update_before BEFORE UPDATE ON events BEGIN
    ${unindexPendingTable('old')}
  END;
  CREATE TRIGGER events_search_update_after AFTER UPDATE ON events BEGIN
    INSERT OR IGNORE INTO events_search_pending (event_rowid) VALUES (new.rowid);
  END;
  CREATE TRIGGER events_search_batch AFTER INSERT ON events_search_pending
    WHEN new.event_rowid % ${PENDING_TABLE_BATCH} = 0 BEGIN
    ${pendingTableFlushSql};
  END;
  ${pendingTableFlushSql};
`;

const watermark = '(SELECT indexed_through FROM events_search_state)';
const lastRowid = '(SELECT coalesce(max(rowid), 0) FROM events)';

/**
 * Migration 6: a watermark instead of a pending row per event, and no trigger on insert: an
 * append writes only its event row (migration 5's pending row and batch trigger cost the
 * append 1.3-1.5x the cost without the index). Migration 5's pending events are indexed first,
 * so every event up to the watermark is indexed.
 *
 * A delete or update touches the index only for an indexed row (an FTS5 'delete' of a row it
 * never had corrupts the index); a pending row is indexed as it is when its turn comes. A delete
 * of the last rows lowers the watermark to the largest rowid left: the next insert reuses the
 * rowid after it, which must count as not indexed.
 */
export const SQLITE_SEARCH_WATERMARK_MIGRATION_SQL = `
  ${pendingTableFlushSql};
  DROP TRIGGER events_search_batch;
  DROP TRIGGER events_search_insert;
  DROP TRIGGER events_search_delete;
  DROP TRIGGER events_search_update_before;
  DROP TRIGGER events_search_update_after;
  DROP TABLE events_search_pending;
  CREATE TABLE events_search_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL
  );
  INSERT INTO events_search_state (id, indexed_through) VALUES (1, ${lastRowid});
  CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', old.rowid, text FROM (SELECT ${body('old')} AS text)
      WHERE old.rowid <= ${watermark} AND text IS NOT NULL;
    UPDATE events_search_state SET indexed_through = ${lastRowid}
      WHERE indexed_through > ${lastRowid};
  END;
  CREATE TRIGGER events_search_update_before BEFORE UPDATE ON events
    WHEN old.rowid <= ${watermark} BEGIN
    INSERT INTO events_search (events_search, rowid, body)
      SELECT 'delete', old.rowid, text FROM (SELECT ${body('old')} AS text) WHERE text IS NOT NULL;
  END;
  CREATE TRIGGER events_search_update_after AFTER UPDATE ON events
    WHEN new.rowid <= ${watermark} BEGIN
    INSERT INTO events_search (rowid, body)
      SELECT new.rowid, text FROM (SELECT ${body('new')} AS text) WHERE text IS NOT NULL;
  END;
`;

interface IndexStatements {
  pending: BetterSqlite3.Statement<unknown[], unknown>;
  low: BetterSqlite3.Statement<unknown[], number>;
  high: BetterSqlite3.Statement<unknown[], number | null>;
  index: BetterSqlite3.Statement<unknown[], unknown>;
  advance: BetterSqlite3.Statement<unknown[], unknown>;
}

const prepared = new WeakMap<BetterSqlite3.Database, IndexStatements>();

function indexStatements(database: BetterSqlite3.Database): IndexStatements {
  let statements = prepared.get(database);
  if (!statements) {
    statements = {
      pending: database.prepare(`SELECT 1 FROM events WHERE rowid > ${watermark} LIMIT 1`),
      low: database
        .prepare<unknown[], number>('SELECT indexed_through FROM events_search_state')
        .pluck(),
      // The rowid of the limit-th pending event (or the last one): a range read of the rowids.
      high: database
        .prepare<unknown[], number | null>(
          'SELECT max(rowid) FROM (SELECT rowid FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?)',
        )
        .pluck(),
      // `LIMIT -1` keeps SQLite from flattening the subquery (each text computed twice).
      index: database.prepare(`INSERT INTO events_search (rowid, body)
        SELECT event_rowid, text FROM (
          SELECT rowid AS event_rowid, ${body('events')} AS text FROM events
          WHERE rowid > ? AND rowid <= ? LIMIT -1)
        WHERE text IS NOT NULL`),
      advance: database.prepare('UPDATE events_search_state SET indexed_through = ?'),
    };
    prepared.set(database, statements);
  }
  return statements;
}

/** Whether events wait to be indexed (a read; no write lock). */
export function hasPendingSearchEvents(database: BetterSqlite3.Database): boolean {
  return indexStatements(database).pending.get() !== undefined;
}

/**
 * Indexes the events waiting (at most `limit` of them, the oldest first; all by default) and
 * moves the watermark past them. Run in a write transaction. False when none waited.
 */
export function indexPendingSearchEvents(
  database: BetterSqlite3.Database,
  options: { limit?: number } = {},
): boolean {
  const statements = indexStatements(database);
  const low = statements.low.get() ?? 0;
  const high = statements.high.get(low, options.limit ?? -1);
  if (high === null || high === undefined) return false;
  statements.index.run(low, high);
  statements.advance.run(high);
  return true;
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
      database.exec(`UPDATE events_search_state SET indexed_through = ${lastRowid}`);
    })
    .immediate();
}
