import { SCOPED_SEARCH_VECTOR } from './search-scope.js';

/**
 * The PostgreSQL search's migrations (migrations.ts runs them in order): the `search` column,
 * its GIN index and the index of searchable events by user and seq, the column filled by the
 * writer, the vector kept in the row. The search statements are in search.ts.
 */

/**
 * The migration's statements (`{schema}` replaced by the migrator). The function is IMMUTABLE
 * (a generated column needs it): it reads only its argument. A string PostgreSQL's text type
 * cannot hold (`\u0000`) makes the json functions throw; the raw JSON text is indexed instead.
 */
export const POSTGRES_SEARCH_MIGRATION: string[] = [
  `CREATE FUNCTION {schema}.orrery_event_search_text(event json) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $search$
    DECLARE
      projected text;
    BEGIN
      WITH RECURSIVE walk(parent, key, value) AS (
        SELECT NULL::text, 'content'::text, event -> 'content'
        UNION ALL
        SELECT child.parent, child.key, child.value FROM walk w CROSS JOIN LATERAL (
          SELECT w.key AS parent, e.key, e.value
            FROM json_each(CASE WHEN json_typeof(w.value) = 'object' THEN w.value ELSE '{}'::json END) e
          UNION ALL
          SELECT w.key, NULL::text, a.value
            FROM json_array_elements(CASE WHEN json_typeof(w.value) = 'array' THEN w.value ELSE '[]'::json END) a
        ) child
      )
      SELECT string_agg(value #>> '{}', ' ') INTO projected FROM walk
        WHERE json_typeof(value) IN ('string', 'number')
          AND coalesce(key, '') NOT IN ('thoughtSignature', 'mimeType')
          AND NOT (key = 'role' AND parent = 'content')
          AND NOT (key = 'id' AND parent IN ('functionCall', 'functionResponse'))
          AND NOT (key = 'data' AND parent = 'inlineData');
      RETURN regexp_replace(coalesce(projected, ''), '[!-/:-@[-\`{-~]+', ' ', 'g');
    EXCEPTION WHEN others THEN
      RETURN regexp_replace(replace(event::text, '\\u0000', ' '), '[!-/:-@[-\`{-~]+', ' ', 'g');
    END
    $search$`,
  `ALTER TABLE {schema}.orrery_events ADD COLUMN search tsvector
    GENERATED ALWAYS AS (CASE WHEN is_compaction THEN NULL
      ELSE to_tsvector('simple'::regconfig, {schema}.orrery_event_search_text(event)) END) STORED`,
  'CREATE INDEX orrery_events_search ON {schema}.orrery_events USING gin (search)',
];

/**
 * Migration 6: the user's searchable events by `seq` across sessions. Without a session, "the
 * most recent matches" (`ORDER BY seq DESC LIMIT` cap) had no index in that order (the primary
 * key is per session), so PostgreSQL read and sorted every match of a common word (a parallel
 * seq scan, ~145 ms at 100k events); this index is walked backward and stops at the cap, as the
 * primary key is for one session (docs/architecture.md, Storage). Partial on `search IS NOT
 * NULL`, which `search @@ query` implies: only search can use it, so the view and listing
 * queries of one session keep the primary key (with one session per user it would tie).
 */
export const POSTGRES_SEARCH_ACROSS_SESSIONS_MIGRATION: string[] = [
  `CREATE INDEX orrery_events_user_seq ON {schema}.orrery_events (app_name, user_id, seq)
    WHERE search IS NOT NULL`,
];

/**
 * Migration 7: the `search` column filled by the writer (search-column.ts), no longer generated:
 * the generated expression's plpgsql json walk cost a quarter to a third of a turn's database
 * CPU. `DROP EXPRESSION` keeps every stored value (no rewrite). A writer that does not set it
 * (an older orrery still running during an upgrade, a bulk load by hand) leaves it NULL on a
 * searchable row; the trigger then computes it as the generated column did. Its `WHEN` is
 * checked per row without calling plpgsql, so the store's own inserts pay nothing for it.
 */
export const POSTGRES_SEARCH_FILLED_BY_WRITER_MIGRATION: string[] = [
  'ALTER TABLE {schema}.orrery_events ALTER COLUMN search DROP EXPRESSION',
  `CREATE FUNCTION {schema}.orrery_event_search_fill() RETURNS trigger
    LANGUAGE plpgsql AS $fill$
    BEGIN
      NEW.search := to_tsvector('simple'::regconfig, {schema}.orrery_event_search_text(NEW.event));
      RETURN NEW;
    END
    $fill$`,
  `CREATE TRIGGER orrery_events_search_fill BEFORE INSERT ON {schema}.orrery_events
    FOR EACH ROW WHEN (NEW.search IS NULL AND NOT NEW.is_compaction)
    EXECUTE FUNCTION {schema}.orrery_event_search_fill()`,
];

/**
 * Migration 9: a row's `tsvector` kept in the row (`STORAGE MAIN`) instead of out of line in the
 * TOAST table. A tool output's vector (~200 lexemes with positions, ~3.8 kB) does not compress
 * (pglz gives up), so it was stored out of line, and every read of it (the ranked candidates'
 * `@@` and `length`, a walk's `@@` on each row it passes) cost a TOAST index descent and two
 * chunk pages besides the heap page. Kept in the row, it costs the heap page the read already
 * fetched. The event's JSON is kept in the row too (compressed, as it was): with only the
 * vector MAIN, PostgreSQL moves the JSON out of line to make room, and reading the 100 most
 * recent events of a session read 136 pages instead of 29 (54 with both in the row). Only a row
 * still past ~8 kB once compressed has a value moved out of line. No rewrite: rows written
 * before stay as they are (their reads as before), later rows are stored this way.
 */
export const POSTGRES_SEARCH_IN_ROW_MIGRATION: string[] = [
  `ALTER TABLE {schema}.orrery_events ALTER COLUMN search SET STORAGE MAIN,
    ALTER COLUMN event SET STORAGE MAIN`,
];

/**
 * Migration 11: the search index scoped (search.ts). The GIN index is over the vector plus three
 * lexemes a row (`SCOPED_SEARCH_VECTOR`, search-scope.ts): its user's, its session's and its
 * session's seq bucket's. A term ANDed with a scope's lexeme reads only that scope's matches,
 * and with a few buckets' (OR-ed) only the session's most recent ones; the index on the vector
 * alone read a heap row for each match in the table to drop the other sessions' and to sort by
 * seq. It replaces that index: every GIN read of search.ts ANDs a scope. Partial on `search IS
 * NOT NULL`, as compactions are not searched. Building it reads the whole table once (~5 s for
 * 200k events).
 */
/**
 * The index's pending list (GIN's buffer of entries not yet merged into the tree) in kB: every
 * GIN read scans all of it, and a search makes one to two reads a term. At PostgreSQL's 4 MB
 * default, a read between two vacuums could scan 512 pages (the probe's bulk load left 296:
 * p50 33.5 ms against 23.1 after merging them); at this size at most 16, the insert that
 * fills it merging them. Bulk imports pay for the more frequent merges (docs/search.md).
 */
export const GIN_PENDING_LIST_KB = 128;

export const POSTGRES_SEARCH_SCOPED_MIGRATION: string[] = [
  `CREATE INDEX orrery_events_search_scoped ON {schema}.orrery_events
    USING gin (${SCOPED_SEARCH_VECTOR}) WITH (gin_pending_list_limit = ${GIN_PENDING_LIST_KB})
    WHERE search IS NOT NULL`,
  'DROP INDEX {schema}.orrery_events_search',
];
