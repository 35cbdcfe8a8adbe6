/**
 * History search for `InMemorySessionService`: a small BM25 index per session, built lazily
 * from the stored events (each search first indexes what was appended since the last one), so
 * the append path pays nothing. Sessions are append-only, so an index only ever grows; it is
 * keyed by the session's event list, so a deleted session's index goes with it.
 */
import type { Event } from '../events/types.js';
import { SessionNotFoundError } from './errors.js';
import {
  eventSearchText,
  matchesSearchFilters,
  type ResolvedSearch,
  searchTerms,
  tokenizeSearchText,
} from './search-text.js';
import type { SearchHit } from './session-service.js';

/** BM25 parameters (the usual ones; SQLite's `bm25()` uses the same). */
const K1 = 1.2;
const B = 0.75;

/** What the service stores for an event (its JSON, `seq` included). */
export interface SearchableStoredEvent {
  json: string;
  isCompaction: boolean;
}

export interface SearchableSession {
  sessionId: string;
  events: readonly SearchableStoredEvent[];
}

interface SessionIndex {
  /** Events read so far (the next one to index is at this position). */
  indexed: number;
  /** term -> [seq, term frequency] pairs, seq ascending. */
  postings: Map<string, Array<[number, number]>>;
  /** seq -> length in terms (indexed events only). */
  lengths: Map<number, number>;
  /** seq -> what the search filters read (`after`, `before`, `authors`). */
  filterFields: Map<number, { timestamp: number; author: string }>;
  totalLength: number;
}

function newIndex(): SessionIndex {
  return {
    indexed: 0,
    postings: new Map(),
    lengths: new Map(),
    filterFields: new Map(),
    totalLength: 0,
  };
}

function indexEvent(index: SessionIndex, seq: number, event: Event): void {
  const words = tokenizeSearchText(eventSearchText(event), { foldDiacritics: true });
  if (words.length === 0) return;
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  for (const [word, count] of counts) {
    let list = index.postings.get(word);
    if (!list) {
      list = [];
      index.postings.set(word, list);
    }
    list.push([seq, count]);
  }
  index.lengths.set(seq, words.length);
  index.filterFields.set(seq, { timestamp: event.timestamp, author: event.author });
  index.totalLength += words.length;
}

export class InMemoryEventSearch {
  private readonly indexes = new WeakMap<readonly SearchableStoredEvent[], SessionIndex>();

  /** The best hits among `sessions` (already scoped to one app and user by the caller). */
  search(options: { sessions: readonly SearchableSession[]; search: ResolvedSearch }): SearchHit[] {
    const { search } = options;
    if (search.sessionId !== undefined && options.sessions.length === 0) {
      throw new SessionNotFoundError({
        appName: search.appName,
        userId: search.userId,
        sessionId: search.sessionId,
      });
    }
    const terms = searchTerms(search.query, { foldDiacritics: true });
    if (terms.length === 0) return [];
    const indexes = options.sessions.map((session) => ({
      session,
      index: this.catchUp(session),
    }));
    // Corpus statistics over the sessions searched, as one index over all of them would have.
    let documents = 0;
    let totalLength = 0;
    const frequencies = new Map<string, number>();
    for (const { index } of indexes) {
      documents += index.lengths.size;
      totalLength += index.totalLength;
      for (const term of terms) {
        const count = index.postings.get(term)?.length ?? 0;
        frequencies.set(term, (frequencies.get(term) ?? 0) + count);
      }
    }
    if (documents === 0) return [];
    const averageLength = totalLength / documents;
    const filtered =
      search.authors !== undefined || search.after > -Infinity || search.before < Infinity;
    const scored: Array<{ session: SearchableSession; seq: number; score: number }> = [];
    for (const { session, index } of indexes) {
      const scores = new Map<number, number>();
      for (const term of terms) {
        const list = index.postings.get(term);
        if (!list) continue;
        const frequency = frequencies.get(term) ?? 0;
        const idf = Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
        for (const [seq, count] of list) {
          if (seq <= search.afterSeq || seq >= search.beforeSeq) continue;
          if (filtered && !matchesSearchFilters(search, index.filterFields.get(seq)!)) continue;
          const length = index.lengths.get(seq) ?? 0;
          const weight = (count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength));
          scores.set(seq, (scores.get(seq) ?? 0) + idf * weight);
        }
      }
      for (const [seq, score] of scores) scored.push({ session, seq, score });
    }
    scored.sort((a, b) => b.score - a.score || b.seq - a.seq);
    return scored.slice(0, search.limit).map(({ session, seq, score }) => {
      const event = JSON.parse(session.events[seq - 1]!.json) as Event;
      return {
        event,
        sessionId: session.sessionId,
        seq,
        timestamp: event.timestamp,
        author: event.author,
        score,
      };
    });
  }

  /** The session's index with every stored event in it. */
  private catchUp(session: SearchableSession): SessionIndex {
    let index = this.indexes.get(session.events);
    if (!index) {
      index = newIndex();
      this.indexes.set(session.events, index);
    }
    for (; index.indexed < session.events.length; index.indexed++) {
      const stored = session.events[index.indexed]!;
      if (stored.isCompaction) continue;
      indexEvent(index, index.indexed + 1, JSON.parse(stored.json) as Event);
    }
    return index;
  }
}
