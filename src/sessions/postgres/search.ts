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
import { quoteIdentifier } from './migrations.js';
import type { EventRow, rowToEvent } from './rows.js';

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
/**
 * A term whose estimated matches in the scope (its share of the table's events in
 * `pg_stats.most_common_elems`, after ANALYZE, times the scope's event count) reach this many
 * takes that estimate as its document frequency instead of a count: counting a common word's
 * matches read up to `MAX_COUNTED_MATCHES` rows (~160 ms at 100k events), and at this many
 * matches an estimate off by 10% moves its weight by ~0.1 against ~4.6.
 */
export const MIN_ESTIMATED_MATCHES = 1000;

/** BM25 parameters, as the in-memory store and SQLite's `bm25()` use them. */
const K1 = 1.2;
const B = 0.75;

/** How a statement reads each term's matches (see `buildSearchStatements`). */
export interface SearchPlan {
  /** Per term: `true` to walk an index in seq order (a common term), `false` to read by GIN. */
  walks: readonly boolean[];
  /**
   * Whether the scope is a large part of the table (`LARGE_SCOPE_SHARE`): GIN reads then
   * check the scope on the rows they read, never by a bitmap of the scope's primary key
   * entries (a read of every entry of a 100k-event session, ~5 ms each, for a few matches).
   */
  fenced: boolean;
  /**
   * Per term (default none): a term not walked whose df is estimated, in one session: its
   * candidates by the range read, its df its share times N; a GIN read and count only when the
   * range falls short (`estimatedTerm`).
   */
  estimated?: readonly boolean[];
}

export interface SearchStatements {
  /** The ranked statement for a plan (built once per plan). */
  ranked(plan: SearchPlan): string;
  /**
   * The sessions in scope, their events and their highest seq ($1 app, $2 user, $3 session or
   * null).
   */
  readonly scope: string;
}

/**
 * A term held by at least this share of the table's events (term-shares.ts) is read by a walk
 * of the events in seq order, stopped at its candidate cap; a rarer one by the GIN index,
 * which then reads at most this share of the table.
 */
export const WALK_SHARE = 0.02;
/** A scope holding at least this share of the table's events is `fenced` (`SearchPlan`). */
export const LARGE_SCOPE_SHARE = 0.25;

/** Parameters before the terms' (see `buildSearchStatements`). */
const FIXED_PARAMETERS = 13;
/**
 * Parameters of each term: its tsquery, its share of the table's events or null, and the seq
 * above which a walked term's candidates are first looked for (`walkFloor`) or null.
 */
const TERM_PARAMETERS = 3;
/**
 * A walked term first reads its matches among the most recent `RANGE_MARGIN * cap / share`
 * events of the scope (`walkFloor`): 1.5 times the span that holds its cap of matches at its
 * share, so the range falls short (and the walk runs after it) only for a term much rarer in
 * the scope than in the table.
 */
export const RANGE_MARGIN = 1.5;
/**
 * A term held by more than this share of the events walks: its walk is short (at most 4 rows a
 * candidate), and the planner may read such a term's range by its GIN entries alone, every
 * match in the table (a 50% word across sessions: 35,000 pages, 290 ms).
 */
export const MAX_RANGE_SHARE = 0.25;
/**
 * What one primary key entry the range read takes into its bitmap costs, against a heap row a
 * GIN read visits (0.36 µs an entry against 1.5-2.2 µs a row, EXPLAIN ANALYZE on the search
 * probes' 100k-event sessions): a term below `WALK_SHARE` is read by its range (its df then
 * estimated) only when its matches in the table outnumber the range's entries times this;
 * else its GIN read is the cheaper, and counts its df exactly.
 */
export const RANGE_ENTRY_COST = 0.2;
/** Statements kept per store (one per pattern of common and rare terms). */
const MAX_CACHED_STATEMENTS = 256;

/**
 * The search statement for one schema and its terms ($1 app, $2 user, $3 session or null,
 * $4 afterSeq, $5 beforeSeq, $6 limit, $7 candidates per term, $8 after, $9 before, $10 authors,
 * $11 the count cap, $12 `MIN_ESTIMATED_MATCHES`, $13 whether no filter is set; then for each
 * term its tsquery, its share of the table's events when it is a common lexeme (term-shares.ts)
 * or null, and its `walkFloor` or null: `searchParameters` builds them).
 *
 * BM25 over the tsvector, like the other stores: each term's weight is its IDF, ln(1 + (N - df +
 * 0.5) / (df + 0.5)), with N the events in scope (the sessions' event counts); an event's score
 * is the sum of the weights of the terms it holds, scaled by BM25's length normalization over
 * its distinct lexemes against the candidates' mean (term frequency counted once: the tsvector
 * of a long tool output would cost a detoast per term to count it). So a speaker's name in
 * every line weighs little and a rare word much, as in SQLite and in memory.
 *
 * Candidates and df, per term:
 * - a rare term (not among ANALYZE's common lexemes): one read of its matches in scope by the
 *   GIN index, up to $11; df is their count, its candidates the most recent $7 of them that
 *   pass the filters. Past $11 matches (a huge history), df is $11 and the candidates come by
 *   the index walk of a common term.
 * - a common term: its $7 most recent matches by an index walk in seq order, stopped at the
 *   cap (the primary key for one session, orrery_events_user_seq across sessions): no GIN scan
 *   of tens of thousands of matches. df: the candidates' count when they are all its matches
 *   (fewer than $7, no filter set); else its share times N when that reaches
 *   `MIN_ESTIMATED_MATCHES`; else a count of its matches in scope stopped at $11 (a scalar
 *   subquery PostgreSQL runs only when reached).
 *   In one session, a common term's candidates are first looked for above a floor (its third
 *   parameter, `walkFloor`) by a bitmap of its GIN entries ANDed with the primary key's range:
 *   the walk read every row it passed (and its TOASTed tsvector to test the term); the walk
 *   runs only when the range holds fewer than $7 matches.
 * The candidates' tsvectors are read once (setweight copies them), after the caps, each row by
 * the `ctid` its read returned (no primary key lookup).
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
    scope: `SELECT count(*)::int AS sessions, coalesce(sum(event_count), 0)::float8 AS events,
        coalesce(max(last_seq), 0)::float8 AS last_seq
      FROM ${sessions} WHERE app_name = $1 AND user_id = $2 AND ($3::text IS NULL OR id = $3)`,
    ranked(plan: SearchPlan): string {
      const common = plan.walks;
      const estimated = (index: number) => plan.estimated?.[index] === true;
      const pattern = `${plan.fenced ? 'f' : 'u'}${common
        .map((walk, index) => (walk ? 'w' : estimated(index) ? 'e' : 'g'))
        .join('')}`;
      let text = cache.get(pattern);
      if (text) return text;
      const parameter = (index: number, offset: number) =>
        `$${FIXED_PARAMETERS + 1 + index * TERM_PARAMETERS + offset}`;
      const query = (index: number) => `to_tsquery('simple'::regconfig, ${parameter(index, 0)})`;
      const share = (index: number) => `${parameter(index, 1)}::float8`;
      const floor = (index: number) => `${parameter(index, 2)}::bigint`;
      const walk = (index: number) => `SELECT session_id, seq, ctid AS tid FROM ${events}
          WHERE ${scope} AND ${filters} AND search @@ ${query(index)}
          ORDER BY seq DESC LIMIT $7`;
      // One session's matches above the floor (`walkFloor`) by GIN and the primary key (a
      // bitmap of each, ANDed: no row's tsvector read, where the walk reads every row it
      // passes); the walk only when they are fewer than the cap. The same rows as the walk:
      // the $7 highest seqs of the session's matches (seqs are unique in a session).
      const ranged = (index: number) => `r${index} AS MATERIALIZED (SELECT session_id, seq, tid
          FROM (SELECT session_id, seq, ctid AS tid FROM ${events}
            WHERE ${floor(index)} IS NOT NULL AND ${scope} AND ${filters} AND seq > ${floor(index)}
              AND search @@ ${query(index)} OFFSET 0) ranged
          ORDER BY seq DESC LIMIT $7)`;
      const count = (index: number) => `(SELECT count(*)::float8 FROM (SELECT 1 FROM ${events}
          WHERE ${scope} AND search @@ ${query(index)} LIMIT $11) matched)`;
      // A rare term's matches in scope by its GIN entries, up to $11, when `when` holds (an
      // InitPlan PostgreSQL checks once, before the read).
      const matches = (index: number, when = 'true') =>
        plan.fenced
          ? `m${index} AS MATERIALIZED (SELECT session_id, seq, timestamp, author, tid FROM (
                    SELECT app_name, user_id, session_id, seq, timestamp, author, ctid AS tid
                    FROM ${events}
                    WHERE ${when} AND search @@ ${query(index)} OFFSET 0) matched
                  WHERE ${scope} LIMIT $11)`
          : `m${index} AS MATERIALIZED (SELECT session_id, seq, timestamp, author, ctid AS tid
                  FROM ${events}
                  WHERE ${when} AND ${scope} AND search @@ ${query(index)} LIMIT $11)`;
      // The top $7 of a rare term's matches that pass the filters; past $11 matches, the walk.
      const rareCandidates = (
        index: number,
        when = 'true',
      ) => `(SELECT session_id, seq, tid FROM m${index}
                  WHERE ${when} AND (SELECT df FROM df${index}) < $11 AND ${filters}
                  ORDER BY seq DESC LIMIT $7)
                UNION ALL (${walk(index).replace('WHERE', `WHERE ${when} AND (SELECT df FROM df${index}) >= $11 AND`)})`;
      const commonTerm = (index: number) => [
        ranged(index),
        `c${index} AS MATERIALIZED (
                (SELECT * FROM r${index} WHERE (SELECT count(*) FROM r${index}) >= $7)
                UNION ALL (${walk(index).replace('WHERE', `WHERE (SELECT count(*) FROM r${index}) < $7 AND`)}))`,
        `df${index} AS MATERIALIZED (SELECT CASE
                WHEN $13::boolean AND (SELECT count(*) FROM c${index}) < $7
                  THEN (SELECT count(*) FROM c${index})::float8
                WHEN total.n * ${share(index)} >= $12 THEN total.n * ${share(index)}
                ELSE ${count(index)} END AS df FROM total)`,
      ];
      const rareTerm = (index: number) => [
        matches(index),
        // The share and floor (null: not common) only typed here: every parameter must be used.
        `df${index} AS MATERIALIZED (SELECT count(*)::float8 AS df, ${share(index)} AS share,
                ${floor(index)} AS floor FROM m${index})`,
        `c${index} AS MATERIALIZED (${rareCandidates(index)})`,
      ];
      // The range read holds the cap: its rows are the candidates (the $7 most recent matches in
      // scope, as the GIN read would give) and df the estimate (the plan's condition: at least
      // $12). Short of it (the term much rarer in the session than in the table), the GIN read
      // and count of a rare term.
      const estimatedTerm = (index: number) => {
        const short = `(SELECT NOT holds_cap FROM filled${index})`;
        return [
          ranged(index),
          `filled${index} AS MATERIALIZED (SELECT count(*) >= $7 AS holds_cap FROM r${index})`,
          matches(index, short),
          `df${index} AS MATERIALIZED (SELECT CASE WHEN ${short}
                  THEN (SELECT count(*) FROM m${index})::float8
                ELSE total.n * ${share(index)} END AS df FROM total)`,
          `c${index} AS MATERIALIZED ((SELECT * FROM r${index} WHERE NOT ${short})
                UNION ALL ${rareCandidates(index, short)})`,
        ];
      };
      const ctes = common.flatMap((walked, index) =>
        walked ? commonTerm(index) : estimated(index) ? estimatedTerm(index) : rareTerm(index),
      );
      const terms = common.map((_, index) => index);
      const idf = (index: number) =>
        `ln(1 + (greatest(total.n, df${index}.df) - df${index}.df + 0.5) / (df${index}.df + 0.5))`;
      const weight = terms
        .map((index) => `CASE WHEN e.search @@ ${query(index)} THEN ${idf(index)} ELSE 0 END`)
        .join(' + ');
      // $11..$13 are typed here too: a plan without a common or a rare term leaves some unused.
      text = `WITH total AS MATERIALIZED (SELECT greatest(coalesce(sum(event_count), 0), 1)::float8 AS n,
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
      SELECT e.session_id, e.seq, e.is_compaction, e.compaction_start_seq, e.compaction_end_seq,
        e.event, r.score
      FROM ranked r JOIN ${events} e ON e.ctid = r.tid
      ORDER BY r.score DESC, r.seq DESC`;
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
      cache.set(pattern, text);
      return text;
    },
  };
}

/** A term's share of the table's events (term-shares.ts); undefined when it is not common. */
export type TermShare = (term: QueryTerm) => number | undefined;

/** The statement's parameters for `search` and its `terms` (see `buildSearchStatements`). */
export function searchParameters(options: {
  search: ResolvedSearch;
  terms: readonly QueryTerm[];
  limit: number;
  share?: TermShare;
  /**
   * The sessions in scope, their highest seq and their events (`SearchStatements.scope`; none:
   * no floor).
   */
  scope?: { sessions: number; lastSeq: number; events?: number };
}): unknown[] {
  const { search, terms } = options;
  const cap = candidatesPerTerm(search, terms.length);
  const unfiltered =
    search.afterSeq <= 0 &&
    search.beforeSeq === Number.MAX_SAFE_INTEGER &&
    !Number.isFinite(search.after) &&
    !Number.isFinite(search.before) &&
    search.authors === undefined;
  return [
    search.appName,
    search.userId,
    search.sessionId ?? null,
    search.afterSeq,
    search.beforeSeq,
    options.limit,
    cap,
    Number.isFinite(search.after) ? search.after : null,
    Number.isFinite(search.before) ? search.before : null,
    search.authors ? [...search.authors] : null,
    MAX_COUNTED_MATCHES,
    MIN_ESTIMATED_MATCHES,
    unfiltered,
    ...terms.flatMap((term) => {
      const share = options.share?.(term);
      const floor = options.scope && walkFloor({ search, share, cap, ...options.scope });
      return [toTermTsQuery(term), share ?? null, floor ?? null];
    }),
  ];
}

/** Each term's candidate cap ($7). */
function candidatesPerTerm(search: ResolvedSearch, terms: number): number {
  return Math.max(search.limit, Math.floor(MAX_RANKED_CANDIDATES / terms));
}

/**
 * The seq above which a walked term (share at least `WALK_SHARE`) of one session looks for its
 * `cap` most recent matches first: `RANGE_MARGIN * cap / share` events below the session's
 * highest seq. Also for a rarer common term whose estimated matches in the session (share times
 * `events`) reach `MIN_ESTIMATED_MATCHES` (its df is then estimated, `SearchPlan.estimated`).
 * Undefined above `MAX_RANGE_SHARE`, when the range would hold the whole session
 * (the walk is as cheap),
 * and without a session: seqs repeat across sessions, and which of the matches tied on the
 * cap's seq the walk keeps is the index's order, which a sort cannot reproduce.
 */
export function walkFloor(options: {
  search: ResolvedSearch;
  share: number | undefined;
  cap: number;
  lastSeq: number;
  /** The session's events (none: only a walked term has a floor). */
  events?: number;
}): number | undefined {
  const { search, share } = options;
  if (share === undefined || share > MAX_RANGE_SHARE) return undefined;
  if (share < WALK_SHARE && share * (options.events ?? 0) < MIN_ESTIMATED_MATCHES) return undefined;
  if (search.sessionId === undefined) return undefined;
  const top = Math.min(options.lastSeq, search.beforeSeq - 1);
  const floor = top - Math.ceil((RANGE_MARGIN * options.cap) / share);
  return floor > Math.max(0, search.afterSeq) ? floor : undefined;
}

/**
 * Whether a term of this share of the table's events is cheaper read by its range (the
 * primary key's `RANGE_MARGIN * cap / share` most recent entries, `walkFloor`) than by its GIN
 * entries (a heap row for each of its matches in the table, up to `MAX_COUNTED_MATCHES`; past
 * that the GIN read gives no count, so the range).
 */
export function rangeReadIsCheaper(options: {
  share: number;
  cap: number;
  tableRows: number;
}): boolean {
  const { share, cap, tableRows } = options;
  const matches = share * tableRows;
  return matches > MAX_COUNTED_MATCHES || matches > (RANGE_ENTRY_COST * RANGE_MARGIN * cap) / share;
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
  /** Common terms' shares of the table's events (term-shares.ts), read before the search. */
  share?: TermShare;
  /** The events table's estimated row count (term-shares.ts; 0: unknown). */
  tableRows: number;
  /**
   * The sessions in scope, their highest seq and their events (the sessions' event counts,
   * `SearchStatements.scope`).
   */
  scope: { sessions: number; lastSeq: number; events: number };
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
  const shares = terms.map((term) => options.share?.(term));
  const walks = shares.map((share) => share !== undefined && share >= WALK_SHARE);
  const cap = candidatesPerTerm(search, terms.length);
  const plan = {
    walks,
    fenced: options.tableRows > 0 && options.scope.events >= LARGE_SCOPE_SHARE * options.tableRows,
    // A term below the walk's share with a floor (its matches in the session are estimated at
    // `MIN_ESTIMATED_MATCHES` or more, `walkFloor`) whose range costs less than its GIN read.
    estimated: shares.map(
      (share, index) =>
        !walks[index] &&
        walkFloor({ search, share, cap, ...options.scope }) !== undefined &&
        rangeReadIsCheaper({ share: share!, cap, tableRows: options.tableRows }),
    ),
  };
  const rows = await options.query(
    options.statements.ranked(plan),
    searchParameters({
      search,
      terms,
      limit: boost ? search.limit * 3 : search.limit,
      share: options.share,
      scope: options.scope,
    }),
  );
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
