/**
 * Incremental indexing: the events of a session appended since its `indexedThrough` are read
 * with `listEvents` (a page per embedding call), their searchable text (`eventSearchText`, what
 * the stores index, capped) embedded and stored, the prefix moved after each page. The budget
 * bounds one search's cost; later searches continue where it stopped.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type { SessionKey } from '../../events/types.js';
import { eventSearchText } from '../../sessions/search-text.js';
import type { SessionService } from '../../sessions/session-service.js';
import { capText } from '../../summarizers/cap-text.js';
import { embedTexts } from './embed-texts.js';
import type { EmbeddingIndex, IndexedVector } from './embedding-index.js';

export interface IndexSessionEventsOptions {
  sessionService: SessionService;
  index: EmbeddingIndex;
  model: EmbeddingModelV3;
  key: SessionKey;
  /** Events past this seq are not needed by the search (its `beforeSeq`, exclusive). */
  beforeSeq: number;
  /** Events to read at most. */
  budget: number;
  maxEmbeddingsPerCall: number;
  maxTextChars: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Indexes what the session added since the last call; returns how many events it read. */
export async function indexSessionEvents(options: IndexSessionEventsOptions): Promise<number> {
  const { sessionService, index, key, signal } = options;
  let afterSeq = await index.indexedThrough({ ...key, signal });
  let read = 0;
  while (read < options.budget && afterSeq + 1 < options.beforeSeq) {
    const page = await sessionService.listEvents({
      ...key,
      afterSeq,
      beforeSeq: options.beforeSeq,
      limit: Math.min(options.budget - read, options.maxEmbeddingsPerCall),
      signal,
    });
    const last = page.events[page.events.length - 1];
    if (!last) break;
    const embeddable = page.events
      .map((event) => ({ event, text: eventSearchText(event) }))
      .filter(({ text }) => text.trim() !== '');
    const vectors = await embedTexts({
      model: options.model,
      texts: embeddable.map(({ text }) => capText({ text, maxChars: options.maxTextChars })),
      maxEmbeddingsPerCall: options.maxEmbeddingsPerCall,
      timeoutMs: options.timeoutMs,
      signal,
    });
    const indexed: IndexedVector[] = [];
    embeddable.forEach(({ event }, position) => {
      const vector = vectors[position];
      if (vector) indexed.push({ seq: event.seq, eventId: event.id, vector });
    });
    await index.put({ ...key, vectors: indexed, throughSeq: last.seq, signal });
    read += page.events.length;
    afterSeq = last.seq;
    if (page.nextCursor === undefined) break;
  }
  return read;
}
