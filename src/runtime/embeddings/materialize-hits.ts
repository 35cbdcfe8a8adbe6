/**
 * The fused ranking as `SearchHit`s: lexical hits as the store gave them (their event is in
 * hand), vector hits read back from the store by `seq` (the index holds no events), in parallel
 * a window at a time. A vector whose event is missing or has another `id` is stale (the session
 * was deleted and recreated behind the index): it is skipped and the session's vectors dropped
 * (an event whose id matches is the indexed one, stale session or not).
 */
import type { Event, SessionKey } from '../../events/types.js';
import { matchesSearchFilters, type ResolvedSearch } from '../../sessions/search-text.js';
import type { SearchHit, SessionService } from '../../sessions/session-service.js';
import type { EmbeddingIndex } from './embedding-index.js';
import { eventKey, type FusedEvent } from './fused-ranking.js';

/** Reads of vector hits in flight at once. */
const PARALLEL_READS = 16;

async function readEvent(options: {
  sessionService: SessionService;
  key: SessionKey;
  seq: number;
  signal?: AbortSignal;
}): Promise<Event | undefined> {
  const page = await options.sessionService.listEvents({
    ...options.key,
    afterSeq: options.seq - 1,
    beforeSeq: options.seq + 1,
    limit: 1,
    signal: options.signal,
  });
  return page.events[0];
}

export interface MaterializeHitsOptions {
  sessionService: SessionService;
  index: EmbeddingIndex;
  search: ResolvedSearch;
  fused: readonly FusedEvent[];
  lexical: readonly SearchHit[];
  /** The indexed event id of every vector-ranked event, by `eventKey`. */
  eventIds: ReadonlyMap<string, string>;
  signal?: AbortSignal;
}

/** The best `search.limit` hits of the fused list. */
export async function materializeHits(options: MaterializeHitsOptions): Promise<SearchHit[]> {
  const { search, signal } = options;
  const lexical = new Map(options.lexical.map((hit) => [eventKey(hit), hit]));
  const stale = new Set<string>();
  const hits: SearchHit[] = [];
  let position = 0;
  while (hits.length < search.limit && position < options.fused.length) {
    const window = options.fused.slice(position, position + search.limit - hits.length);
    position += window.length;
    const read = async (item: FusedEvent): Promise<SearchHit | undefined> => {
      const expectedId = options.eventIds.get(eventKey(item));
      const known = lexical.get(eventKey(item));
      if (known) {
        if (expectedId !== undefined && expectedId !== known.event.id) stale.add(item.sessionId);
        return { ...known, score: item.score };
      }
      if (stale.has(item.sessionId)) return undefined;
      const key = { appName: search.appName, userId: search.userId, sessionId: item.sessionId };
      const event = await readEvent({ ...options, key, seq: item.seq });
      if (!event || event.id !== expectedId) {
        stale.add(item.sessionId);
        return undefined;
      }
      // The index holds no times or authors: vector hits meet the filters here.
      if (!matchesSearchFilters(search, event)) return undefined;
      const { sessionId, seq, score } = item;
      return { event, sessionId, seq, timestamp: event.timestamp, author: event.author, score };
    };
    for (let start = 0; start < window.length; start += PARALLEL_READS) {
      const found = await Promise.all(window.slice(start, start + PARALLEL_READS).map(read));
      for (const hit of found) if (hit) hits.push(hit);
    }
  }
  for (const sessionId of stale) {
    await options.index.deleteSession({
      appName: search.appName,
      userId: search.userId,
      sessionId,
      signal,
    });
  }
  return hits;
}
