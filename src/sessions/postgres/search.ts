/**
 * History search for the PostgreSQL store: a generated `tsvector` column (`search`, the 'simple'
 * configuration: no stemming, any language) over a text projection of the event, a GIN index,
 * and `ts_rank_cd` over the OR-ed query terms, events with two or more terms first
 * (`searchPostgresEvents`). The projection (`orrery_event_search_text`) reads
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

interface SearchRow extends EventRow {
  session_id: string;
  score: number;
}

/**
 * Each round ranks at most this many matching events, the most recent: ranking reads a row's
 * stored `tsvector` (often TOASTed), which over every match of a common word cost ~245 ms at
 * 100k events (docs/architecture.md, Storage).
 */
export const MAX_RANKED_CANDIDATES = 1000;
/** The first this many terms form the pairs of the first round (28 pairs at 8). */
const MAX_PAIRED_TERMS = 8;

export interface SearchStatements {
  /** Events matching at least two terms ($12: the pairs). */
  paired: string;
  /** Events matching any term. */
  any: string;
}

/**
 * The search statements for one schema ($1 app, $2 user, $3 session or null, $4 the OR-ed
 * terms, $5 afterSeq, $6 beforeSeq, $7 limit, $8 the candidate cap, $9 after, $10 before,
 * $11 authors, $12 the pairs).
 */
export function buildSearchStatements(schemaName: string): SearchStatements {
  // Quoted here, not with migrations.ts's helper: that module imports this one.
  const events = `"${schemaName.replaceAll('"', '""')}".orrery_events`;
  const columns = 'session_id, seq, is_compaction, compaction_start_seq, compaction_end_seq';
  // The inner query orders by seq alone, so no row's tsvector is read before the cap. For a
  // common word the planner walks an index in seq order and stops at the cap: the primary key
  // for one session, orrery_events_user_seq across sessions; for a rare one, GIN then a sort.
  // Normalization 1: rank divided by 1 + log(length), so a long tool output does not win on
  // size alone. The rank is over every term ($4), whichever matched.
  const ranked = (match: string) => `SELECT ${columns}, event,
      ts_rank_cd(search, to_tsquery('simple'::regconfig, $4), 1) AS score FROM (
        SELECT ${columns}, event, search FROM ${events}
        WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR session_id = $3)
          AND seq > $5 AND seq < $6
          AND ($9::float8 IS NULL OR timestamp > $9) AND ($10::float8 IS NULL OR timestamp < $10)
          AND ($11::text[] IS NULL OR author = ANY($11::text[]))
          AND search @@ to_tsquery('simple'::regconfig, ${match})
        ORDER BY seq DESC LIMIT $8) candidates
      ORDER BY score DESC, seq DESC LIMIT $7`;
  return { paired: ranked('$12'), any: ranked('$4') };
}

/**
 * The terms as a tsquery: each a quoted lexeme, OR-ed. Terms hold only letters, digits and
 * marks (search-text.ts), so `!`, `&`, `:*`, quotes and parentheses never reach it.
 */
export function toTsQuery(terms: readonly string[]): string {
  return terms.map((term) => `'${term}'`).join(' | ');
}

/** "At least two of the terms" as a tsquery (pairs of the first 8); `undefined` for one term. */
export function toPairsTsQuery(terms: readonly string[]): string | undefined {
  const paired = terms.slice(0, MAX_PAIRED_TERMS);
  const pairs: string[] = [];
  for (let first = 0; first < paired.length; first++) {
    for (let second = first + 1; second < paired.length; second++) {
      pairs.push(`('${paired[first]}' & '${paired[second]}')`);
    }
  }
  return pairs.length > 0 ? pairs.join(' | ') : undefined;
}

export interface PostgresSearchOptions {
  search: ResolvedSearch;
  statements: SearchStatements;
  /** Runs one statement on the store's connection (errors typed by the caller). */
  query: (text: string, values: unknown[]) => Promise<SearchRow[]>;
  readRow: (row: EventRow, sessionId: string) => ReturnType<typeof rowToEvent> | undefined;
}

/**
 * Two rounds, each a GIN index scan that reads few rows: first the events matching at least two
 * terms (few, even for common words), ranked; when they are fewer than `limit`, the events
 * matching any term fill the rest, ranked after them. An event with two or more of the query's
 * words comes first, then the rank decides. Each round ranks the `MAX_RANKED_CANDIDATES` most
 * recent matches (docs/architecture.md, Storage).
 */
export async function searchPostgresEvents(options: PostgresSearchOptions): Promise<SearchHit[]> {
  const { search } = options;
  // No diacritic folding: the 'simple' configuration keeps accents, so the query must too.
  const terms = searchTerms(search.query);
  if (terms.length === 0) return [];
  const base = [
    search.appName,
    search.userId,
    search.sessionId ?? null,
    toTsQuery(terms),
    search.afterSeq,
    search.beforeSeq,
  ];
  const filters = [
    Number.isFinite(search.after) ? search.after : null,
    Number.isFinite(search.before) ? search.before : null,
    search.authors ? [...search.authors] : null,
  ];
  const pairs = toPairsTsQuery(terms);
  const rows = pairs
    ? await options.query(options.statements.paired, [
        ...base,
        search.limit,
        MAX_RANKED_CANDIDATES,
        ...filters,
        pairs,
      ])
    : [];
  if (rows.length < search.limit) {
    const seen = new Set(rows.map((row) => `${row.seq}/${row.session_id}`));
    const more = await options.query(options.statements.any, [
      ...base,
      search.limit + rows.length,
      MAX_RANKED_CANDIDATES,
      ...filters,
    ]);
    for (const row of more) if (!seen.has(`${row.seq}/${row.session_id}`)) rows.push(row);
  }
  return toSearchHits(rows, search, options.readRow);
}

/** Rows as hits, each checked like every other read (`readRow` decides on a corrupt one). */
function toSearchHits(
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
