/**
 * What history search reads of an event and of a query, shared by the three stores so they
 * agree on terms: an event's searchable text is every string and number under `content` (text,
 * tool call names and arguments, tool results), without ids, roles, signatures and inline
 * binary data; a query is natural language, cut into terms that are OR-ed (never "all must
 * match"), so quotes, operators and punctuation are ordinary characters, never a syntax error.
 */
import { InvalidArgumentError } from '../events/errors.js';
import type { Event } from '../events/types.js';
import type { SearchEventsOptions } from './session-service.js';
import { assertValidSessionKey, resolveSeqBounds } from './store-helpers.js';

/** Default `searchEvents` limit. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Largest `searchEvents` limit. */
export const MAX_SEARCH_LIMIT = 1000;
/** Terms of a query past this many are ignored (a pasted page is still a query). */
export const MAX_QUERY_TERMS = 32;
/** Longer terms are no words (base64, hashes): left out of queries. */
const MAX_TERM_LENGTH = 64;

/**
 * Words that carry no fact in a question ("what did we choose for the port?"). BM25 weighs them
 * down anyway; leaving them out saves reading their long match lists.
 */
const STOP_WORDS = new Set(
  (
    'a about an and any are as at be been being but by can could did do does for from had has ' +
    'have how i if in into is it its me my of on or our so some than that the their them then ' +
    'there these they this to us was we were what when where which who whom why will with would ' +
    'you your'
  ).split(' '),
);

/** Fields that are no content: ids pair calls with responses, the rest is binary or metadata. */
function isSkippedField(key: string, parent: string | undefined): boolean {
  if (key === 'thoughtSignature' || key === 'mimeType') return true;
  if (key === 'id') return parent === 'functionCall' || parent === 'functionResponse';
  if (key === 'data') return parent === 'inlineData';
  return key === 'role' && parent === 'content';
}

function collectLeaves(value: unknown, key: string, parent: string | undefined, out: string[]) {
  if (typeof value === 'string') {
    if (!isSkippedField(key, parent)) out.push(value);
  } else if (typeof value === 'number') {
    if (!isSkippedField(key, parent)) out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) collectLeaves(item, '', key, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [childKey, child] of Object.entries(value)) collectLeaves(child, childKey, key, out);
  }
}

/**
 * The searchable text of an event (the SQL stores compute the same projection in SQL);
 * empty for a compaction event: search finds what happened, not summaries of it.
 */
export function eventSearchText(event: Pick<Event, 'content' | 'actions'>): string {
  if (event.actions?.compaction || !event.content) return '';
  const out: string[] = [];
  collectLeaves(event.content, 'content', undefined, out);
  return out.join(' ');
}

/**
 * Splits text into lower-case words of letters, digits and marks; every other character
 * (punctuation, quotes, operators, `_`, `/`, `.`) separates words, as SQLite's `unicode61`
 * tokenizer does. `foldDiacritics` also strips accents (`Zürich` -> `zurich`).
 */
export function tokenizeSearchText(
  text: string,
  options: { foldDiacritics?: boolean } = {},
): string[] {
  let normalized = text.toLowerCase();
  if (options.foldDiacritics) normalized = normalized.normalize('NFKD').replace(/\p{M}+/gu, '');
  return normalized.split(/[^\p{L}\p{N}\p{M}]+/u).filter((word) => word.length > 0);
}

/**
 * A natural-language query as distinct search terms: stop words and over-long words left out,
 * at most `MAX_QUERY_TERMS`. A query of stop words only keeps them (so "to be or not to be"
 * still searches). Empty when the query has no word at all.
 */
export function searchTerms(query: string, options: { foldDiacritics?: boolean } = {}): string[] {
  const words = tokenizeSearchText(query, options).filter((word) => word.length <= MAX_TERM_LENGTH);
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  const distinct = [...new Set(meaningful.length > 0 ? meaningful : words)];
  return distinct.slice(0, MAX_QUERY_TERMS);
}

export interface ResolvedSearch {
  appName: string;
  userId: string;
  sessionId?: string;
  query: string;
  limit: number;
  afterSeq: number;
  beforeSeq: number;
  /** Only `timestamp > after` (`-Infinity` when not given). */
  after: number;
  /** Only `timestamp < before` (`Infinity` when not given). */
  before: number;
  /** Only these authors; `undefined`: any author. */
  authors?: readonly string[];
}

/** Whether an event passes the search's time and author filters (the stores' rule, in one place). */
export function matchesSearchFilters(
  search: Pick<ResolvedSearch, 'after' | 'before' | 'authors'>,
  event: { timestamp: number; author: string },
): boolean {
  if (!(event.timestamp > search.after && event.timestamp < search.before)) return false;
  return search.authors === undefined || search.authors.includes(event.author);
}

/** Checks `after` and `before`: finite numbers (epoch seconds) when given. */
function resolveTimeBound(name: 'after' | 'before', value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError({
      argument: name,
      message: `searchEvents ${name} must be a finite number (epoch seconds), got ${JSON.stringify(value)}`,
      value,
    });
  }
  return value;
}

/** Checks `authors`: an array of strings when given (copied, distinct). */
function resolveAuthors(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((author) => typeof author !== 'string')) {
    throw new InvalidArgumentError({
      argument: 'authors',
      message: `searchEvents authors must be an array of strings, got ${JSON.stringify(value)}`,
      value,
    });
  }
  return [...new Set(value as string[])];
}

/** Checks `searchEvents` options (`InvalidArgumentError` naming the option). */
export function resolveSearchOptions(options: SearchEventsOptions): ResolvedSearch {
  assertValidSessionKey({ ...options, sessionId: options.sessionId ?? '-' });
  if (typeof options.query !== 'string') {
    throw new InvalidArgumentError({
      argument: 'query',
      message: `searchEvents query must be a string, got ${JSON.stringify(options.query)}`,
      value: options.query,
    });
  }
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new InvalidArgumentError({
      argument: 'limit',
      message: `searchEvents limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}, got ${options.limit}`,
      value: options.limit,
    });
  }
  const { afterSeq, beforeSeq } = resolveSeqBounds(options);
  return {
    appName: options.appName,
    userId: options.userId,
    sessionId: options.sessionId,
    query: options.query,
    limit,
    afterSeq,
    beforeSeq,
    after: resolveTimeBound('after', options.after, Number.NEGATIVE_INFINITY),
    before: resolveTimeBound('before', options.before, Number.POSITIVE_INFINITY),
    authors: resolveAuthors(options.authors),
  };
}
