import { describe, expect, it } from 'vitest';
import type { Event, NewEvent } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';
import { isLossless } from './replay-lossless.js';

const key = { appName: 'app', userId: 'user', sessionId: 'session' };

/** A store whose history is `stored`, in one page. */
function storeOf(stored: Event[]): SessionService {
  return {
    listEvents: async () => ({ events: stored }),
  } as unknown as SessionService;
}

const replayed: NewEvent[] = [
  {
    id: 'e1',
    author: 'user',
    invocationId: 'i1',
    timestamp: 1,
    content: { role: 'user', parts: [{ text: 'hello' }] },
    actions: {},
    branch: undefined,
  },
  {
    id: 'e2',
    author: 'agent',
    invocationId: 'i1',
    timestamp: 2,
    content: {
      role: 'model',
      parts: [{ functionCall: { id: 'c1', name: 'grep', args: { query: 'x', limit: 3 } } }],
    },
    actions: {},
  },
];

describe('isLossless', () => {
  it('takes the same events back, key order and undefined members aside', async () => {
    const stored = [
      { seq: 1, ...JSON.parse(JSON.stringify(replayed[0])) },
      {
        seq: 2,
        actions: {},
        timestamp: 2,
        invocationId: 'i1',
        author: 'agent',
        id: 'e2',
        content: {
          parts: [{ functionCall: { args: { limit: 3, query: 'x' }, name: 'grep', id: 'c1' } }],
          role: 'model',
        },
      },
    ] as Event[];
    expect(await isLossless({ service: storeOf(stored), key, replayed })).toBe(true);
  });

  it('refuses a changed value, a missing or extra member, and a missing event', async () => {
    const copy = () =>
      replayed.map((event, index) => ({ seq: index + 1, ...structuredClone(event) }));
    const changed = copy();
    (changed[1]!.content!.parts[0]!.functionCall!.args as Record<string, unknown>).limit = 4;
    const extra = copy();
    (extra[0] as unknown as Record<string, unknown>).partial = false;
    const missing = copy();
    delete (missing[1]!.content!.parts[0]!.functionCall!.args as Record<string, unknown>).query;
    for (const stored of [changed, extra, missing, copy().slice(0, 1)]) {
      expect(await isLossless({ service: storeOf(stored as Event[]), key, replayed })).toBe(false);
    }
    expect(await isLossless({ service: storeOf(copy() as Event[]), key, replayed })).toBe(true);
  });
});
