/**
 * History search for the PostgreSQL store: a `tsvector` column (`search`, the 'simple'
 * configuration: words as written, any language; stems and phrases come from the query,
 * query-terms.ts) over a text projection of the event, and BM25 over the OR-ed query terms
 * (`buildSearchStatements`). The projection (`orrery_event_search_text`) reads every string and
 * number under `content` as `eventSearchText` (search-text.ts) does, then turns ASCII
 * punctuation into spaces so `src/foo-bar.ts` is the words `src foo bar ts` (the default parser
 * would keep it as one file-path token that no word of a question matches).
 *
 * The GIN index is over the vector with three more lexemes a row (`SCOPED_SEARCH_VECTOR`,
 * search-scope.ts: migration 11): its user's, its session's, and its session's seq bucket
 * (`SEQ_BUCKET_SIZE` events). A term's matches in one session, or in its most recent buckets,
 * are then one GIN read (the term's posting list ANDed with the scope's), no heap row of
 * another session's match read and no primary key range scanned.
 */

import { asksAboutChanges, boostChanges, queryTerms, type SearchLanguage } from '../query-terms.js';
import type { ResolvedSearch } from '../search-text.js';
import type { SearchHit } from '../session-service.js';
import { quoteIdentifier } from './migrations.js';
import type { EventRow, rowToEvent } from './rows.js';
import { searchParameters, type TermRead, type TermShare, termReads } from './search-parameters.js';
import { SCOPED_SEARCH_VECTOR, SEQ_BUCKET_SIZE } from './search-scope.js';

export {
  DEFAULT_RARE_SHARE,
  MAX_COUNTED_MATCHES,
  MAX_RANKED_CANDIDATES,
  MAX_WINDOW_BUCKETS,
  MIN_ESTIMATED_MATCHES,
  SESSION_WALK_SHARE,
  searchParameters,
  type TermRead,
  type TermShare,
  termReads,
  toIndexTsQuery,
  toTermTsQuery,
  WALK_SHARE,
  WINDOW_MARGIN,
  windowLowBucket,
} from './search-parameters.js';
export { SEQ_BUCKET_SIZE };

interface SearchRow extends EventRow {
  session_id: string;
  score: number;
  /** The `matches` terms (their indexes) whose matches reached `MAX_COUNTED_MATCHES`. */
  overflowed?: number[];
}

/** BM25 parameters, as the in-memory store and SQLite's `bm25()` use them. */
const K1 = 1.2;
const B = 0.75;

/** How a statement reads each term (see `buildSearchStatements`). */
export interface SearchPlan {
  reads: readonly TermRead[];
}

export interface SearchStatements {
  /** The ranked statement for a plan (built once per plan). */
  ranked(plan: SearchPlan): string;
  /** The sessions in scope and their highest seq ($1 app, $2 user, $3 session or null). */
  readonly scope: string;
}

/** Parameters before the terms' (see `buildSearchStatements`). */
const FIXED_PARAMETERS = 14;
/**
 * Parameters of each term: its tsquery, its share of the table's events or null, the lowest
 * seq bucket of its window or null, its lexemes ANDed for the index (`toIndexTsQuery`), and its
 * window's buckets as a tsquery or null (`bucketsTsQuery`).
 */
const TERM_PARAMETERS = 5;
/** Statements kept per store (one per pattern of term reads). */
const MAX_CACHED_STATEMENTS = 256;

/**
 * The search statement for one schema and its terms ($1 app, $2 user, $3 session or null,
 * $4 afterSeq, $5 beforeSeq, $6 limit, $7 candidates per term, $8 after, $9 before, $10 authors,
 * $11 the count cap, $12 `MIN_ESTIMATED_MATCHES`, $13 whether no filter is set, $14 the scope's
 * lexeme as a tsquery (search-scope.ts); then for each term its tsquery, its share of the
 * table's events when it is a common lexeme (term-shares.ts) or null, its window's lowest seq
 * bucket or null, its lexemes for the index (`toIndexTsQuery`), and its window's buckets as a
 * tsquery or null: `searchParameters` builds them).
 *
 * BM25 over the tsvector, like the other stores: each term's weight is its IDF, ln(1 + (N - df +
 * 0.5) / (df + 0.5)), with N the events in scope (the sessions' event counts); an event's score
 * is the sum of the weights of the terms it holds, scaled by BM25's length normalization over
 * its distinct lexemes against the candidates' mean (term frequency counted once: the tsvector
 * of a long tool output would cost a detoast per term to count it). So a speaker's name in
 * every line weighs little and a rare word much, as in SQLite and in memory.
 *
 * Candidates and df, per term (`TermRead`):
 * - `matches`: one GIN read of its matches in scope (the term ANDed with the user's or the
 *   session's lexeme), up to $11; df their count, its candidates the most recent $7 of them
 *   that pass the filters. Past $11 matches (a huge history), df is $11, the statement's
 *   `overflowed` column names the term, and `overflow` (run again) takes its candidates by
 *   the walk.
 * - `window` (one session): one GIN read of its matches in the session's buckets from the
 *   third parameter up (the term ANDed with the buckets' lexemes, OR-ed); when they hold $7
 *   that pass the filters, those are its candidates and df is their count scaled to the
 *   session (k * N / the window's events). Short of that, every match in the session, counted
 *   (an InitPlan PostgreSQL runs only then).
 * - `walk` (a common term): its $7 most recent matches by an index walk in seq order, stopped
 *   at the cap. df: the candidates' count when they are all its matches (fewer than $7, no
 *   filter set); else its share times N when that reaches `MIN_ESTIMATED_MATCHES`; else a
 *   count of its matches in scope by GIN, stopped at $11 (a scalar subquery PostgreSQL runs
 *   only when reached).
 * Each GIN read sits behind `OFFSET 0`, so the planner cannot AND it with a bitmap of the
 * scope's primary key entries (a read of every entry of a 100k-event session, ~5 ms each). The
 * candidates' tsvectors are read once (setweight copies them), after the caps, each row by the
 * `ctid` its read returned (no primary key lookup).
 */
export function buildSearchStatements(schemaName: string): SearchStatements {
  const quoted = quoteIdentifier(schemaName);
  const events = `${quoted}.orrery_events`;
  const sessions = `${quoted}.orrery_sessions`;
  const scope = `app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR session_id = $3)`;
  const filters = `seq > $4 AND seq < $5
      AND ($8::float8 IS NULL OR timestamp > $8) AND ($9::float8 IS NULL OR timestamp < $9)
      AND ($10::text[] IS NULL OR author = ANY($10::text[]))`;
  const cache = new Map<string, string>();
  return {
    scope: `SELECT count(*)::int AS sessions, coalesce(max(last_seq), 0)::float8 AS last_seq
      FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR id = $3)`,
    ranked(plan: SearchPlan): string {
      const pattern = plan.reads.map((read) => (read === 'window' ? 'b' : read[0])).join('');
      let text = cache.get(pattern);
      if (text) return text;
      const parameter = (index: number, offset: number) =>
        `$${FIXED_PARAMETERS + 1 + index * TERM_PARAMETERS + offset}`;
      const query = (index: number) => `to_tsquery('simple'::regconfig, ${parameter(index, 0)})`;
      const share = (index: number) => `${parameter(index, 1)}::float8`;
      const low = (index: number) => `${parameter(index, 2)}::bigint`;
      const lexemeQuery = (index: number) =>
        `to_tsquery('simple'::regconfig, ${parameter(index, 3)})`;
      const window = (index: number) => `${parameter(index, 4)}::tsquery`;
      // One GIN read: the term's matches in the scope ($14) or in its window's buckets; `when`
      // an InitPlan checked once, before the read.
      const indexed = (index: number, scopeQuery: string, columns: string, when = 'true') =>
        `SELECT ${columns} FROM (
            SELECT app_name, user_id, session_id, seq, timestamp, author, ctid AS tid FROM ${events}
            WHERE ${when} AND search IS NOT NULL
              AND ${SCOPED_SEARCH_VECTOR} @@ (${lexemeQuery(index)} && ${scopeQuery}) AND search @@ ${query(index)}
            OFFSET 0) indexed
          WHERE ${scope}`;
      const walk = (index: number) => `SELECT session_id, seq, ctid AS tid FROM ${events}
          WHERE ${scope} AND ${filters} AND search @@ ${query(index)}
          ORDER BY seq DESC LIMIT $7`;
      const count = (index: number) => `(SELECT count(*)::float8 FROM (
          ${indexed(index, '$14::tsquery', '1')} LIMIT $11) matched)`;
      // A window's fallback reads every match in the session (no walk after it: the walk's
      // cost estimate, a scan of ~cap / share rows, would put the plan past `jit_above_cost`).
      const matches = (index: number, when = 'true', limit = 'LIMIT $11') =>
        `m${index} AS MATERIALIZED (${indexed(index, '$14::tsquery', 'session_id, seq, timestamp, author, tid', when)} ${limit})`;
      // The top $7 of the matches that pass the filters; past $11 matches, the walk (only in an
      // `overflow` plan: its cost estimate, a scan of ~cap / share rows, would put every plan
      // past `jit_above_cost`, and compiling it costs ~100 ms).
      const matchedCandidates = (index: number, walkAfter: boolean) =>
        `(SELECT session_id, seq, tid FROM m${index}
                  WHERE ${walkAfter ? `(SELECT df FROM df${index}) < $11 AND ` : ''}${filters}
                  ORDER BY seq DESC LIMIT $7)${
                    walkAfter
                      ? `
                UNION ALL (${walk(index).replace('WHERE', `WHERE (SELECT df FROM df${index}) >= $11 AND`)})`
                      : ''
                  }`;
      const walkTerm = (index: number) => [
        `c${index} AS MATERIALIZED (${walk(index)})`,
        // The window's bucket (null: not a window) only typed here: every parameter must be used.
        `df${index} AS MATERIALIZED (SELECT CASE
                WHEN $13::boolean AND (SELECT count(*) FROM c${index}) < $7
                  THEN (SELECT count(*) FROM c${index})::float8
                WHEN total.n * ${share(index)} >= $12 THEN total.n * ${share(index)}
                ELSE ${count(index)} END AS df, ${low(index)} AS low, ${window(index)} AS window
              FROM total)`,
      ];
      const matchesTerm = (index: number, walkAfter: boolean) => [
        matches(index),
        `df${index} AS MATERIALIZED (SELECT count(*)::float8 AS df, ${share(index)} AS share,
                ${low(index)} AS low, ${window(index)} AS window FROM m${index})`,
        `c${index} AS MATERIALIZED (${matchedCandidates(index, walkAfter)})`,
      ];
      const windowTerm = (index: number) => {
        const short = `(SELECT NOT holds_cap FROM filled${index})`;
        return [
          `w${index} AS MATERIALIZED (${indexed(index, window(index), `session_id, seq, tid, (${filters}) AS passes`, `${window(index)} IS NOT NULL`)})`,
          // k: the window's matches up to `top` (its last bucket may reach past `beforeSeq`).
          `filled${index} AS MATERIALIZED (SELECT count(*) FILTER (WHERE passes) >= $7 AS holds_cap,
                count(*) FILTER (WHERE seq <= (SELECT top FROM total))::float8 AS k FROM w${index})`,
          matches(index, short, ''),
          `df${index} AS MATERIALIZED (SELECT CASE WHEN NOT filled.holds_cap
                  THEN (SELECT count(*) FROM m${index})::float8
                ELSE filled.k * total.n / greatest(total.top - ${low(index)} * ${SEQ_BUCKET_SIZE} + 1, 1)
                END AS df, ${share(index)} AS share FROM total, filled${index} filled)`,
          `c${index} AS MATERIALIZED ((SELECT session_id, seq, tid FROM w${index}
                  WHERE passes AND NOT ${short} ORDER BY seq DESC LIMIT $7)
                UNION ALL (SELECT session_id, seq, tid FROM m${index} WHERE ${short} AND ${filters}
                  ORDER BY seq DESC LIMIT $7))`,
        ];
      };
      const ctes = plan.reads.flatMap((read, index) =>
        read === 'walk'
          ? walkTerm(index)
          : read === 'window'
            ? windowTerm(index)
            : matchesTerm(index, read === 'overflow'),
      );
      const terms = plan.reads.map((_, index) => index);
      const overflowing = terms.filter((index) => plan.reads[index] === 'matches');
      const overflowed = `ARRAY[${overflowing
        .map((index) => `CASE WHEN df${index}.df >= $11 THEN ${index} END`)
        .join(', ')}]::int[]`;
      const idf = (index: number) =>
        `ln(1 + (greatest(total.n, df${index}.df) - df${index}.df + 0.5) / (df${index}.df + 0.5))`;
      const weight = terms
        .map((index) => `CASE WHEN e.search @@ ${query(index)} THEN ${idf(index)} ELSE 0 END`)
        .join(' + ');
      // $11..$13 are typed here too: a plan without a walk or a GIN read leaves some unused.
      text = `WITH total AS MATERIALIZED (SELECT greatest(coalesce(sum(event_count), 0), 1)::float8 AS n,
            least(coalesce(max(last_seq), 0), $5::bigint - 1) AS top,
            $11::int AS count_cap, $12::float8 AS min_estimated, $13::boolean AS unfiltered
          FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR id = $3)),
        ${ctes.join(',\n        ')},
        keys AS MATERIALIZED (SELECT DISTINCT session_id, seq, tid FROM (
          ${terms.map((index) => `SELECT * FROM c${index}`).join(' UNION ALL ')}) matched),
        -- Each candidate read by its heap position (from the reads above, this statement's
        -- snapshot), not by a primary key lookup.
        candidates AS MATERIALIZED (SELECT k.session_id, k.seq, k.tid, setweight(e.search, 'A') AS search
          FROM keys k JOIN ${events} e ON e.ctid = k.tid),
        scored AS (SELECT session_id, seq, tid, length(e.search)::float8 AS size, (${weight}) AS weight
          FROM candidates e CROSS JOIN total ${terms.map((index) => `CROSS JOIN df${index}`).join(' ')}),
        ranked AS (SELECT session_id, seq, tid,
            weight * ${K1 + 1} / (1 + ${K1} * (${1 - B} + ${B} * size / greatest(avg(size) OVER (), 1)))
              AS score
          FROM scored ORDER BY score DESC, seq DESC LIMIT $6)
      -- One row at least: \`overflowed\` (the \`matches\` terms past $11) is read even without a hit.
      SELECT e.session_id, e.seq, e.is_compaction, e.compaction_start_seq, e.compaction_end_seq,
        e.event, r.score, array_remove(${overflowed}, NULL) AS overflowed
      FROM total ${overflowing.map((index) => `CROSS JOIN df${index}`).join(' ')}
        LEFT JOIN (ranked r JOIN ${events} e ON e.ctid = r.tid) ON true
      ORDER BY r.score DESC, r.seq DESC`;
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
      cache.set(pattern, text);
      return text;
    },
  };
}

export interface PostgresSearchOptions {
  search: ResolvedSearch;
  language?: SearchLanguage;
  statements: SearchStatements;
  /** Common terms' shares of the table's events (term-shares.ts), read before the search. */
  share?: TermShare;
  /** The share a term not among the common ones is taken to have (`termReads`' window). */
  rareShare?: number;
  /** The highest seq of the sessions in scope (`SearchStatements.scope`). */
  lastSeq: number;
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
  let reads = termReads({ search, shares: terms.map((term) => options.share?.(term)) });
  const run = () =>
    options.query(
      options.statements.ranked({ reads }),
      searchParameters({
        search,
        terms,
        limit: boost ? search.limit * 3 : search.limit,
        share: options.share,
        reads,
        rareShare: options.rareShare,
        lastSeq: options.lastSeq,
      }),
    );
  let rows = await run();
  const overflowed = new Set(rows[0]?.overflowed ?? []);
  if (overflowed.size > 0) {
    reads = reads.map((read, index) => (overflowed.has(index) ? 'overflow' : read));
    rows = await run();
  }
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
    // The row of a statement without hits (it still says which terms overflowed).
    if (row.seq === null) continue;
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
