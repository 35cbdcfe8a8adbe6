/**
 * The PostgreSQL search's plan and parameters: how each term is read (`termReads`), its window
 * of recent seq buckets (`windowLowBucket`), and the statement's values (`searchParameters`) for
 * the statements search.ts builds.
 */
import type { QueryTerm } from '../query-terms.js';
import type { ResolvedSearch } from '../search-text.js';
import { bucketOf, bucketsTsQuery, scopeTsQuery } from './search-scope.js';

/**
 * The candidates ranked, shared among the terms (each brings at most its share, the most
 * recent of its matches): ranking reads each candidate's stored `tsvector`. A rare term brings
 * all of its matches, whatever their age.
 */
export const MAX_RANKED_CANDIDATES = 1000;
/**
 * A term's document frequency is counted up to this many events: the count of a common word
 * is what costs, and past this share of a large history its weight is small anyway.
 */
export const MAX_COUNTED_MATCHES = 5000;
/**
 * A walked term whose estimated matches in the scope (its share of the table's events in
 * `pg_stats.most_common_elems`, after ANALYZE, times the scope's event count) reach this many
 * takes that estimate as its document frequency instead of a count: at this many matches an
 * estimate off by 10% moves its weight by ~0.1 against ~4.6.
 */
export const MIN_ESTIMATED_MATCHES = 1000;

/** How a statement reads one term's candidates and document frequency. */
export type TermRead =
  /**
   * A common term: its most recent matches by a walk of an index in seq order (the primary
   * key in one session, `orrery_events_user_seq` across sessions), stopped at its cap.
   */
  | 'walk'
  /**
   * One session: its matches in the session's most recent seq buckets (the third parameter:
   * the lowest bucket), sized to hold its cap; df estimated from them. Short of the cap (the
   * term rarer there than its share said), every match in the session (`matches`).
   */
  | 'window'
  /**
   * Every match in the scope by the GIN index, up to `MAX_COUNTED_MATCHES`; df their count.
   * Past that many, the statement says so (its `overflowed` column) and is run again with
   * `overflow` for the term.
   */
  | 'matches'
  /** `matches`, its candidates by the walk when its matches reach `MAX_COUNTED_MATCHES`. */
  | 'overflow';

/**
 * A term held by at least this share of the table's events is walked across sessions (its
 * GIN read would read a heap row for each of its matches); a rarer one read by GIN.
 */
export const WALK_SHARE = 0.02;
/**
 * In one session, a term held by at least this share of the table's events is walked: its
 * walk passes ~1/share rows a candidate, in seq order (adjacent rows share pages), where its
 * window would read every match of at least one whole bucket. Below it, the window.
 */
export const SESSION_WALK_SHARE = 0.15;
/** At most this many buckets in a window (past that, the term's every match is read). */
export const MAX_WINDOW_BUCKETS = 64;
/**
 * A window spans `WINDOW_MARGIN * cap / share` events: twice the span that holds the term's cap
 * at its share, so it falls short (and the session's every match is read after it) only for a
 * term much rarer recently than its share says.
 */
export const WINDOW_MARGIN = 1.25;
/**
 * The share a term not among ANALYZE's common lexemes is taken to have for its window: half of
 * the least common one's (which bounds it), or this without statistics.
 */
export const DEFAULT_RARE_SHARE = 0.005;

/** A term's share of the table's events (term-shares.ts); undefined when it is not common. */
export type TermShare = (term: QueryTerm) => number | undefined;

/** How each term is read: walked when common enough, else by GIN (`TermRead`). */
export function termReads(options: {
  search: ResolvedSearch;
  shares: readonly (number | undefined)[];
}): TermRead[] {
  const oneSession = options.search.sessionId !== undefined;
  return options.shares.map((share) => {
    if (oneSession) return share !== undefined && share >= SESSION_WALK_SHARE ? 'walk' : 'window';
    return share !== undefined && share >= WALK_SHARE ? 'walk' : 'matches';
  });
}

/** The statement's parameters for `search` and its `terms` (see `buildSearchStatements`). */
export function searchParameters(options: {
  search: ResolvedSearch;
  terms: readonly QueryTerm[];
  limit: number;
  share?: TermShare;
  /** Each term's read (default: by `termReads`). */
  reads?: readonly TermRead[];
  /** The share a term not among the common ones is taken to have (default `DEFAULT_RARE_SHARE`). */
  rareShare?: number;
  /** The session's highest seq (none: no window). */
  lastSeq?: number;
}): unknown[] {
  const { search, terms } = options;
  const cap = candidatesPerTerm(search, terms.length);
  const unfiltered =
    search.afterSeq <= 0 &&
    search.beforeSeq === Number.MAX_SAFE_INTEGER &&
    !Number.isFinite(search.after) &&
    !Number.isFinite(search.before) &&
    search.authors === undefined;
  const shares = terms.map((term) => options.share?.(term));
  const reads = options.reads ?? termReads({ search, shares });
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
    scopeTsQuery(search),
    ...terms.flatMap((term, index) => {
      const share = shares[index];
      const bucket =
        reads[index] === 'window' && options.lastSeq !== undefined
          ? windowLowBucket({
              search,
              share: share ?? options.rareShare ?? DEFAULT_RARE_SHARE,
              cap,
              lastSeq: options.lastSeq,
            })
          : undefined;
      const { sessionId, beforeSeq } = search;
      // One bucket past the session's highest seq: events appended since it was read.
      const window =
        bucket === undefined || sessionId === undefined
          ? null
          : bucketsTsQuery({
              key: { ...search, sessionId },
              low: bucket,
              high: bucketOf(Math.min(options.lastSeq ?? 0, beforeSeq - 1)) + 1,
            });
      return [toTermTsQuery(term), share ?? null, bucket ?? null, toIndexTsQuery(term), window];
    }),
  ];
}

/** Each term's candidate cap ($7). */
function candidatesPerTerm(search: ResolvedSearch, terms: number): number {
  return Math.max(search.limit, Math.floor(MAX_RANKED_CANDIDATES / terms));
}

/**
 * The lowest seq bucket of a term's window: the buckets holding the session's most recent
 * `WINDOW_MARGIN * cap / share` events below `beforeSeq`. Undefined when that span reaches
 * back past `afterSeq` or the session's start (the window would be every match: read them
 * at once), or needs more than `MAX_WINDOW_BUCKETS` buckets.
 */
export function windowLowBucket(options: {
  search: ResolvedSearch;
  share: number;
  cap: number;
  lastSeq: number;
}): number | undefined {
  const { search } = options;
  if (!(options.share > 0)) return undefined;
  const top = Math.min(options.lastSeq, search.beforeSeq - 1);
  const lowest = top - Math.ceil((WINDOW_MARGIN * options.cap) / options.share) + 1;
  if (lowest <= Math.max(1, search.afterSeq + 1)) return undefined;
  const low = bucketOf(lowest);
  return bucketOf(top) - low < MAX_WINDOW_BUCKETS ? low : undefined;
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

/**
 * A term as the index reads it: a phrase's lexemes ANDed, without their order. A phrase (or
 * weights) makes GIN recheck each row it returns against its condition, which is the indexed
 * expression (`SCOPED_SEARCH_VECTOR`: three md5 and a copy of the vector, ~14 µs a row); the
 * order is checked on the stored vector instead (`search @@` the phrase).
 */
export function toIndexTsQuery(term: QueryTerm): string {
  if (term.kind !== 'phrase') return toTermTsQuery(term);
  return term.parts.map((part) => `'${part}'`).join(' & ');
}
