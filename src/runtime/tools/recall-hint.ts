/**
 * The multi-hop hint (docs/memory.md#multi-hop): a question like "where does the person who
 * fixed the login bug live?" needs two searches, the second with what the first answer named.
 * Lexical search cannot make that step itself, so each query answer names the people, places
 * and identifiers its hits mention that the query did not, and tells the model to search again
 * with one of them when the question needs a further step.
 */
import { searchTerms } from '../../sessions/search-text.js';
import { findIdentifiers } from '../../summarizers/digest-identifiers.js';

/** Capitalized words (and runs of them) that are names more often than sentence starts. */
const NAME_PATTERN = /\b[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*){0,2}\b/g;
const NOT_NAMES = new Set(
  (
    'I The A An And But Or So If Then This That These Those It Its We You He She They My Our ' +
    'Your His Her Their What When Where Why How Who Which Yes No Not Ok Okay Sure Thanks Thank ' +
    'Hi Hello Hey Also Just Well Oh Let Do Did Is Are Was Were Have Has Had Can Could Would ' +
    'Should Will Maybe Great Good Nice Note In On At For From With By To Of As After Before ' +
    'Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Yesterday Tomorrow'
  ).split(' '),
);
const MAX_NAMES = 5;

/** What `texts` name that `query` does not, most frequent first (at most five). */
export function namedInHits(options: { query: string; texts: readonly string[] }): string[] {
  const asked = new Set(searchTerms(options.query, { foldDiacritics: true }));
  const counts = new Map<string, number>();
  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const text of options.texts) {
    for (const match of text.matchAll(NAME_PATTERN)) {
      const words = match[0].split(/\s+/).filter((word) => !NOT_NAMES.has(word));
      if (words.length > 0) count(words.join(' '));
    }
    for (const identifier of findIdentifiers(text)) count(identifier);
  }
  const fresh = [...counts.entries()].filter(([name]) =>
    searchTerms(name, { foldDiacritics: true }).some((term) => !asked.has(term)),
  );
  fresh.sort((left, right) => right[1] - left[1]);
  return fresh.slice(0, MAX_NAMES).map(([name]) => name);
}

/** The hint a query answer carries, or `undefined` when its hits name nothing new. */
export function multiHopHint(options: {
  query: string;
  texts: readonly string[];
}): string | undefined {
  const names = namedInHits(options);
  if (names.length === 0) return undefined;
  const quoted = names.map((name) => JSON.stringify(name)).join(', ');
  return `If answering needs a further step (who or what these items name), call recall again with that name, e.g. ${quoted}.`;
}
