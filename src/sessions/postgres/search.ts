/**
 * History search for the PostgreSQL store: a generated `tsvector` column (`search`, the 'simple'
 * configuration: words as written, any language; stems and phrases come from the query,
 * query-terms.ts) over a text projection of the event, a GIN index, and BM25 over the OR-ed
 * query terms (`buildSearchStatements`). The projection (`orrery_event_search_text`) reads
 * every string and number under `content` as `eventSearchText` (search-text.ts) does, then turns
 * ASCII punctuation into spaces so `src/foo-bar.ts` is the words `src foo bar ts` (the default
 * parser would keep it as one file-path token that no word of a question matches). Adding the
 * generated column rewrites the table, which indexes the events already there.
 */

import {
  asksAboutChanges,
  boostChanges,
  type QueryTerm,
  queryTerms,
  type SearchLanguage,
} from '../query-terms.js';
import type { ResolvedSearch } from '../search-text.js';
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
 * Each term brings at most this many of its matching events, the most recent, as candidates:
 * ranking reads a row's stored `tsvector` (often TOASTed), which over every match of a common
 * word cost ~245 ms at 100k events (docs/architecture.md, Storage). A rare term brings all of
 * its matches, whatever their age.
 */
export const MAX_RANKED_CANDIDATES = 1000;
/**
 * A term's document frequency is counted up to this many events: the count of a common word
 * is what costs, and past this share of a large history its weight is small anyway.
 */
export const MAX_COUNTED_MATCHES = 5000;

/** BM25 parameters, as the in-memory store and SQLite's `bm25()` use them. */
const K1 = 1.2;
const B = 0.75;

export interface SearchStatements {
  /** The ranked statement for `terms` query terms (built once per count). */
  ranked(terms: number): string;
}

/**
 * The search statement for one schema and `count` terms ($1 app, $2 user, $3 session or null,
 * $4 afterSeq, $5 beforeSeq, $6 limit, $7 candidates per term, $8 after, $9 before, $10 authors,
 * $11 the df cap, $12.. one tsquery per term).
 *
 * BM25 over the tsvector, like the other stores: each term's weight is its IDF, ln(1 + (N - df +
 * 0.5) / (df + 0.5)), with N the events in scope (the sessions' event counts) and df counted by a
 * GIN scan (capped at $11); an event's score is the sum of the weights of the terms it holds,
 * scaled by BM25's length normalization over its distinct lexemes against the candidates' mean
 * (term frequency counted once: the tsvector of a long tool output would cost a detoast per
 * term to count it). So a speaker's name in every line weighs little and a rare word much, as
 * in SQLite and in memory.
 */
export function buildSearchStatements(schemaName: string): SearchStatements {
  // Quoted here, not with migrations.ts's helper: that module imports this one.
  const quoted = `"${schemaName.replaceAll('"', '""')}"`;
  const events = `${quoted}.orrery_events`;
  const sessions = `${quoted}.orrery_sessions`;
  const columns = 'session_id, seq, is_compaction, compaction_start_seq, compaction_end_seq';
  const scope = `app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR session_id = $3)`;
  const filters = `seq > $4 AND seq < $5
      AND ($8::float8 IS NULL OR timestamp > $8) AND ($9::float8 IS NULL OR timestamp < $9)
      AND ($10::text[] IS NULL OR author = ANY($10::text[]))`;
  const cache = new Map<number, string>();
  return {
    ranked(count: number): string {
      let text = cache.get(count);
      if (text) return text;
      const terms = Array.from({ length: count }, (_, index) => index);
      const query = (index: number) => `to_tsquery('simple'::regconfig, $${12 + index})`;
      // The inner queries order by seq alone, so no row's tsvector is read before the cap: for
      // a common word the planner walks an index in seq order and stops (the primary key for
      // one session, orrery_events_user_seq across sessions); for a rare one, GIN then a sort.
      const ctes = terms.flatMap((index) => [
        `df${index} AS (SELECT count(*)::float8 AS df FROM (SELECT 1 FROM ${events}
          WHERE ${scope} AND search @@ ${query(index)} LIMIT $11) matched)`,
        `c${index} AS (SELECT ${columns}, event, search FROM ${events}
          WHERE ${scope} AND ${filters} AND search @@ ${query(index)}
          ORDER BY seq DESC LIMIT $7)`,
      ]);
      const idf = (index: number) =>
        `ln(1 + (greatest(total.n, df${index}.df) - df${index}.df + 0.5) / (df${index}.df + 0.5))`;
      const weight = terms
        .map((index) => `CASE WHEN e.search @@ ${query(index)} THEN ${idf(index)} ELSE 0 END`)
        .join(' + ');
      text = `WITH total AS (SELECT greatest(coalesce(sum(event_count), 0), 1)::float8 AS n
          FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR id = $3)),
        ${ctes.join(',\n        ')},
        candidates AS (SELECT DISTINCT ON (session_id, seq) * FROM (
          ${terms.map((index) => `SELECT * FROM c${index}`).join(' UNION ALL ')}) matched),
        scored AS (SELECT ${columns}, event,
            length(e.search)::float8 AS size, (${weight}) AS weight
          FROM candidates e CROSS JOIN total ${terms.map((index) => `CROSS JOIN df${index}`).join(' ')})
      SELECT ${columns}, event,
        weight * ${K1 + 1} / (1 + ${K1} * (${1 - B} + ${B} * size / greatest(avg(size) OVER (), 1)))
          AS score
      FROM scored ORDER BY score DESC, seq DESC LIMIT $6`;
      cache.set(count, text);
      return text;
    },
  };
}

/**
 * A term as a tsquery: a quoted lexeme, a prefix (`'edit':*`), or a phrase of lexemes in order
 * (`'foo' <-> 'ex'`). Terms hold only letters, digits and marks (query-terms.ts), so `!`, `&`,
 * quotes and parentheses never reach it.
 */
export function toTermTsQuery(term: QueryTerm): string {
  if (term.kind === 'word') return `'${term.text}'`;
  if (term.kind === 'prefix') return `'${term.text}':*`;
  return term.parts.map((part) => `'${part}'`).join(' <-> ');
}

export interface PostgresSearchOptions {
  search: ResolvedSearch;
  language?: SearchLanguage;
  statements: SearchStatements;
  /** Runs one statement on the store's connection (errors typed by the caller). */
  query: (text: string, values: unknown[]) => Promise<SearchRow[]>;
  readRow: (row: EventRow, sessionId: string) => ReturnType<typeof rowToEvent> | undefined;
}

/** One statement: the terms' weights, the candidates, BM25 (see `buildSearchStatements`). */
export async function searchPostgresEvents(options: PostgresSearchOptions): Promise<SearchHit[]> {
  const { search } = options;
  // No diacritic folding: the 'simple' configuration keeps accents, so the query must too.
  const terms = queryTerms(search.query, { language: options.language });
  if (terms.length === 0) return [];
  // A question about changes reads more rows, so an edit ranked lower can rise (query-terms.ts).
  const boost = asksAboutChanges(search.query);
  const rows = await options.query(options.statements.ranked(terms.length), [
    search.appName,
    search.userId,
    search.sessionId ?? null,
    search.afterSeq,
    search.beforeSeq,
    boost ? search.limit * 3 : search.limit,
    Math.max(search.limit, Math.floor(MAX_RANKED_CANDIDATES / terms.length)),
    Number.isFinite(search.after) ? search.after : null,
    Number.isFinite(search.before) ? search.before : null,
    search.authors ? [...search.authors] : null,
    MAX_COUNTED_MATCHES,
    ...terms.map(toTermTsQuery),
  ]);
  const hits = toSearchHits(rows, options.readRow);
  return boost ? boostChanges(hits, search.limit) : hits.slice(0, search.limit);
}

/** Rows as hits, each checked like every other read (`readRow` decides on a corrupt one). */
function toSearchHits(
  rows: SearchRow[],
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
  return hits;
}

export type { SearchRow };
