import { describe, expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import { userTextEvent } from '../testing/event-builders.js';
import { InMemoryEventSearch, type SearchableStoredEvent } from './in-memory-search.js';
import { resolveSearchOptions } from './search-text.js';

describe('InMemoryEventSearch', () => {
  it('indexes on append, so a search reads no stored event but its hits', async () => {
    const search = new InMemoryEventSearch();
    const events: SearchableStoredEvent[] = [];
    for (const [seq, text] of [
      [1, 'the walrus sang'],
      [2, 'nothing to see'],
    ] as const) {
      const event = { ...userTextEvent({ text }), seq } as Event;
      events.push({ json: JSON.stringify(event), isCompaction: false });
      search.added(events, event);
    }
    // A search that indexed here would parse event 2 and throw.
    events[1] = { json: '{not json', isCompaction: false };
    const hits = search.search({
      sessions: [{ sessionId: 's', events }],
      search: resolveSearchOptions({ appName: 'a', userId: 'u', query: 'walrus' }),
    });
    expect(hits.map((hit) => hit.seq)).toEqual([1]);
  });
});
