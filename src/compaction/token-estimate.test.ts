import { describe, expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import { estimateEventTokens, SessionEventTokens } from './token-estimate.js';
import { estimateNextRequest } from './triggers.js';

function event(seq: number, text: string): Event {
  return {
    id: `e${seq}`,
    invocationId: 'i',
    author: 'user',
    timestamp: seq,
    seq,
    actions: {},
    content: { role: 'user', parts: [{ text }] },
  };
}

describe('SessionEventTokens', () => {
  it('gives estimateEventTokens, remembered by seq and bounded', () => {
    const cache = new SessionEventTokens({ limit: 2 });
    const first = event(1, 'a fairly long sentence about checkout latency');
    expect(cache.tokens(first)).toBe(estimateEventTokens(first));
    // Remembered by seq: a stored event never changes, so the first estimate stands.
    expect(cache.tokens(event(1, 'x'))).toBe(estimateEventTokens(first));
    cache.tokens(event(2, 'b'));
    cache.tokens(event(3, 'c'));
    // Past the limit the oldest is forgotten and estimated again.
    expect(cache.tokens(event(1, 'x'))).toBe(estimateEventTokens(event(1, 'x')));
  });

  it('serves estimateNextRequest as its estimator', () => {
    const tail = [event(1, 'one two three'), event(2, '12345 67890')];
    const cache = new SessionEventTokens();
    const estimateEvent = (next: Event) => cache.tokens(next);
    expect(estimateNextRequest({ tail, overheadTokens: 9, estimateEvent })).toEqual(
      estimateNextRequest({ tail, overheadTokens: 9 }),
    );
    let calls = 0;
    const counting = (next: Event) => {
      calls++;
      return estimateEventTokens(next);
    };
    estimateNextRequest({ tail, estimateEvent: counting });
    expect(calls).toBe(2);
  });
});
