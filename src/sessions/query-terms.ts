/**
 * A natural-language query as the terms every store searches for (docs/search.md): words,
 * stems, and whole identifiers. The stores index words (letters, digits and marks; every other
 * character separates them), so:
 * - a word is matched as is (`timeout`);
 * - with stemming (`english`, the default), a word whose stem differs is matched by the part it
 *   shares with its stem, as a prefix (`edited` and `editing` -> `edit*`, `deploying` ->
 *   `deplo*`), so a question's inflection finds the record's;
 * - a path, file name or identifier (`foo.ex`, `checkout-api`, `ERR_TIMEOUT`,
 *   `src/app/main.ts`) is matched whole, as the phrase of its words in order, as well as by
 *   each word: `foo.ex` is rarer than `foo` and `ex`, so it weighs more.
 * The three stores turn these terms into their own query (FTS5, tsquery, the in-memory index).
 */
import { stemmer } from 'stemmer';
import { InvalidArgumentError } from '../events/errors.js';
import { MAX_QUERY_TERMS, searchTerms, tokenizeSearchText } from './search-text.js';

/** How query words are stemmed: `english` (Porter, npm `stemmer`) or `none` (exact words). */
export type SearchLanguage = 'english' | 'none';

export const SEARCH_LANGUAGES: readonly SearchLanguage[] = ['english', 'none'];

export type QueryTerm =
  | { kind: 'word'; text: string }
  | { kind: 'prefix'; text: string }
  | { kind: 'phrase'; parts: string[] };

/** Stems shorter than this are no prefix worth matching (`us*` would match most of a log). */
const MIN_PREFIX_LENGTH = 3;
/** Words of an identifier past this many are not matched as a phrase. */
const MAX_PHRASE_PARTS = 8;
/** Runs of word characters joined by `.`, `_`, `-`, `/`, `:`, `@` or `\`. */
const COMPOUND = /[\p{L}\p{N}\p{M}]+(?:[._\-/:@\\]+[\p{L}\p{N}\p{M}]+)+/gu;

function commonPrefix(a: string, b: string): string {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length++;
  return a.slice(0, length);
}

/** The prefix a word is matched by, or `undefined` to match it as is. */
function stemPrefix(word: string, language: SearchLanguage): string | undefined {
  if (language === 'none' || !/^[a-z]+$/.test(word)) return undefined;
  const prefix = commonPrefix(word, stemmer(word));
  return prefix.length >= MIN_PREFIX_LENGTH && prefix !== word ? prefix : undefined;
}

/** The search terms of `query` (see the module comment); empty when it has no word. */
export function queryTerms(
  query: string,
  options: { foldDiacritics?: boolean; language?: SearchLanguage } = {},
): QueryTerm[] {
  const language = options.language ?? 'english';
  let normalized = query.toLowerCase();
  if (options.foldDiacritics) normalized = normalized.normalize('NFKD').replace(/\p{M}+/gu, '');
  const terms: QueryTerm[] = [];
  const seen = new Set<string>();
  const add = (key: string, term: QueryTerm) => {
    if (seen.has(key) || terms.length >= MAX_QUERY_TERMS) return;
    seen.add(key);
    terms.push(term);
  };
  for (const compound of normalized.match(COMPOUND) ?? []) {
    const parts = tokenizeSearchText(compound);
    if (parts.length >= 2 && parts.length <= MAX_PHRASE_PARTS) {
      add(`phrase:${parts.join(' ')}`, { kind: 'phrase', parts });
    }
  }
  for (const word of searchTerms(normalized)) {
    const prefix = stemPrefix(word, language);
    if (prefix) add(`prefix:${prefix}`, { kind: 'prefix', text: prefix });
    else add(`word:${word}`, { kind: 'word', text: word });
  }
  return terms;
}

/** Verbs of a question about changes: with them, edits of a file rank above reads of it. */
const CHANGE_WORD = /^(edit|modif|chang|creat|writ|wrote|patch|fix|updat|renam|delet|add|remov)/;
/** Tool names and `command` arguments that change a file (OpenHands' `str_replace_editor`). */
const CHANGE_TOOL = /(edit|write|patch|creat|replac|insert|apply|updat|save|modif|renam|delet)/i;
const READ_COMMAND = /^(view|read|cat|show|list|ls|open|get|search|find|grep)\b/i;

/** Whether the query asks about a file or a change (a path, identifier or change verb). */
export function asksAboutChanges(query: string): boolean {
  if ((query.match(COMPOUND) ?? []).length > 0) return true;
  return tokenizeSearchText(query).some((word) => CHANGE_WORD.test(word));
}

/** Whether an event is a tool call that changes a file (`edit_file`, `str_replace` ...). */
export function isChangeEvent(event: {
  content?: { parts?: ReadonlyArray<{ functionCall?: { name?: string; args?: unknown } }> };
}): boolean {
  for (const part of event.content?.parts ?? []) {
    const call = part.functionCall;
    if (!call) continue;
    const args = call.args as { command?: unknown } | undefined;
    const command = typeof args?.command === 'string' ? args.command : undefined;
    if (command !== undefined && CHANGE_TOOL.test(call.name ?? '')) {
      if (!READ_COMMAND.test(command)) return true;
    } else if (CHANGE_TOOL.test(call.name ?? '')) return true;
  }
  return false;
}

/**
 * How much a change event's score is raised for a question about changes: an edit call holds
 * the changed text, so BM25's length normalization puts it ~3x below the short read of the same
 * file (a 100-word edit against a 5-word read, average 30).
 */
export const CHANGE_BOOST = 3;

/** A store's `searchLanguage` option, checked (`InvalidArgumentError` naming it). */
export function resolveSearchLanguage(value: unknown): SearchLanguage {
  if (value === undefined) return 'english';
  if (SEARCH_LANGUAGES.includes(value as SearchLanguage)) return value as SearchLanguage;
  throw new InvalidArgumentError({
    argument: 'searchLanguage',
    message: `searchLanguage must be one of ${SEARCH_LANGUAGES.join(', ')}, got ${JSON.stringify(value)}`,
    value,
  });
}

/** Hits with change events' scores raised by `CHANGE_BOOST`, best first, at most `limit`. */
export function boostChanges<
  Hit extends { score: number; seq: number; event: Parameters<typeof isChangeEvent>[0] },
>(hits: Hit[], limit: number): Hit[] {
  return hits
    .map((hit) => (isChangeEvent(hit.event) ? { ...hit, score: hit.score * CHANGE_BOOST } : hit))
    .sort((a, b) => b.score - a.score || b.seq - a.seq)
    .slice(0, limit);
}
