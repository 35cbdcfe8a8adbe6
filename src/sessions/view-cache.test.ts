import { describe, expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import type { StoredView } from './session-service.js';
import { ViewCache } from './view-cache.js';

const key = (sessionId: string) => ({ appName: 'app', userId: 'user', sessionId });

function event(seq: number, compaction = false): Event {
  return {
    id: `event-${seq}`,
    invocationId: 'invocation',
    author: 'user',
    timestamp: seq,
    seq,
    content: compaction ? undefined : { role: 'user', parts: [{ text: `m${seq}` }] },
    actions: compaction
      ? {
          compaction: {
            startSeq: 1,
            endSeq: seq - 1,
            startTimestamp: 1,
            endTimestamp: seq - 1,
            compactedContent: { role: 'model', parts: [{ text: 's' }] },
            trigger: 'manual',
            tokensBefore: 2,
            tokensAfter: 1,
            summarizer: 'test',
          },
        }
      : {},
  } as Event;
}

function view(lastSeq: number): StoredView {
  return { tail: Array.from({ length: lastSeq }, (_, index) => event(index + 1)), lastSeq };
}

describe('ViewCache', () => {
  it('hits at the same lastSeq and identity, misses on another identity or a smaller lastSeq', () => {
    const cache = new ViewCache();
    cache.remember(key('a'), 1, view(3));
    expect(cache.lookup(key('a'), 1, 3)).toMatchObject({ kind: 'hit', view: view(3) });
    expect(cache.lookup(key('a'), 2, 3)).toEqual({ kind: 'miss' });
    expect(cache.lookup(key('a'), 1, 2)).toEqual({ kind: 'miss' });
    expect(cache.lookup(key('b'), 1, 3)).toEqual({ kind: 'miss' });
  });

  it('extends a view that is behind, and refuses rows holding a compaction', () => {
    const cache = new ViewCache();
    cache.remember(key('a'), 1, view(2));
    expect(cache.lookup(key('a'), 1, 4)).toEqual({ kind: 'behind', afterSeq: 2 });
    expect(cache.extend(key('a'), 1, [event(3), event(4)], 4)).toEqual(view(4));
    expect(cache.lookup(key('a'), 1, 4)).toMatchObject({ kind: 'hit', view: view(4) });
    expect(cache.extend(key('a'), 1, [event(5, true)], 5)).toBeUndefined();
  });

  it('drops the least recently read session past `sessions`', () => {
    const cache = new ViewCache({ sessions: 2 });
    cache.remember(key('a'), 1, view(1));
    cache.remember(key('b'), 1, view(1));
    cache.lookup(key('a'), 1, 1); // a is now the most recently read
    cache.remember(key('c'), 1, view(1));
    expect(cache.lookup(key('b'), 1, 1).kind).toBe('miss');
    expect(cache.lookup(key('a'), 1, 1).kind).toBe('hit');
    expect(cache.size).toEqual({ sessions: 2, events: 2 });
  });

  it('keeps at most `maxEvents` tail events across sessions', () => {
    const cache = new ViewCache({ maxEvents: 10 });
    cache.remember(key('a'), 1, view(6));
    cache.remember(key('b'), 1, view(6));
    expect(cache.size).toEqual({ sessions: 1, events: 6 });
    expect(cache.lookup(key('a'), 1, 6).kind).toBe('miss');
    cache.remember(key('big'), 1, view(11));
    expect(cache.lookup(key('big'), 1, 11).kind).toBe('miss');
    cache.forget(key('b'));
    expect(cache.size).toEqual({ sessions: 0, events: 0 });
  });

  it('keeps nothing with `sessions: 0`', () => {
    const cache = new ViewCache({ sessions: 0 });
    cache.remember(key('a'), 1, view(1));
    expect(cache.lookup(key('a'), 1, 1).kind).toBe('miss');
  });
});
