/**
 * History search for the PostgreSQL store: a generated `tsvector` column (`search`, the 'simple'
 * configuration: no stemming, any language) over a text projection of the event, a GIN index,
 * and `ts_rank_cd` over the OR-ed query terms. The projection (`orrery_event_search_text`) reads
 * every string and number under `content` as `eventSearchText` (search-text.ts) does, then turns
 * ASCII punctuation into spaces so `src/foo-bar.ts` is the words `src foo bar ts` (the default
 * parser would keep it as one file-path token that no word of a question matches). Adding the
 * generated column rewrites the table, which indexes the events already there.
 */

import { type ResolvedSearch, searchTerms } from '../search-text.js';
import type { SearchHit } from '../session-service.js';
import type { EventRow, rowToEvent } from './rows.js';

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

interface SearchRow extends EventRow {
  session_id: string;
  score: number;
}

/** The search statement for one schema ($1 app, $2 user, $3 session or null, $4 query...). */
export function buildSearchQuery(schemaName: string): string {
  // Quoted here, not with migrations.ts's helper: that module imports this one.
  const events = `"${schemaName.replaceAll('"', '""')}".orrery_events`;
  // Normalization 1: rank divided by 1 + log(length), so a long tool output does not win on
  // size alone.
  return `SELECT session_id, seq, is_compaction, compaction_start_seq, compaction_end_seq, event,
      ts_rank_cd(search, query, 1) AS score
    FROM ${events}, to_tsquery('simple'::regconfig, $4) query
    WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR session_id = $3)
      AND seq > $5 AND seq < $6 AND search @@ query
    ORDER BY score DESC, seq DESC LIMIT $7`;
}

/**
 * The terms as a tsquery: each a quoted lexeme, OR-ed. Terms hold only letters, digits and
 * marks (search-text.ts), so `!`, `&`, `:*`, quotes and parentheses never reach it.
 */
export function toTsQuery(terms: readonly string[]): string {
  return terms.map((term) => `'${term}'`).join(' | ');
}

/** The statement's parameters, or `undefined` when the query has no word (no hits). */
export function searchParameters(search: ResolvedSearch): unknown[] | undefined {
  // No diacritic folding: the 'simple' configuration keeps accents, so the query must too.
  const terms = searchTerms(search.query);
  if (terms.length === 0) return undefined;
  return [
    search.appName,
    search.userId,
    search.sessionId ?? null,
    toTsQuery(terms),
    search.afterSeq,
    search.beforeSeq,
    search.limit,
  ];
}

/** Rows as hits, each checked like every other read (`readRow` decides on a corrupt one). */
export function toSearchHits(
  rows: SearchRow[],
  search: ResolvedSearch,
  readRow: (row: EventRow, sessionId: string) => ReturnType<typeof rowToEvent> | undefined,
): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const event = readRow(row, row.session_id);
    if (!event) continue;
    hits.push({
      event,
      sessionId: row.session_id,
      seq: Number(row.seq),
      timestamp: event.timestamp,
      author: event.author,
      score: Number(row.score),
    });
  }
  return hits.slice(0, search.limit);
}

export type { SearchRow };
