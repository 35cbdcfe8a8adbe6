import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { userTextEvent } from '../testing/event-builders.js';
import { readOnlyStore } from './read-only-store.js';

describe('readOnlyStore', () => {
  it('searches with the time and author filters of the store under it', async () => {
    const inner = new InMemorySessionService();
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    await inner.createSession(key);
    for (const [timestamp, author] of [
      [100, 'user'],
      [200, 'agent'],
      [300, 'user'],
    ] as const) {
      await inner.appendEvent({
        ...key,
        event: { ...userTextEvent({ text: `release notes ${timestamp}` }), timestamp, author },
      });
    }
    const store = readOnlyStore(inner);
    const seqs = async (filters: { after?: number; before?: number; authors?: string[] }) =>
      ((await store.searchEvents?.({ ...key, query: 'release', ...filters })) ?? [])
        .map((hit) => hit.seq)
        .sort();
    expect(await seqs({})).toEqual([1, 2, 3]);
    expect(await seqs({ after: 100, before: 300 })).toEqual([2]);
    expect(await seqs({ authors: ['user'] })).toEqual([1, 3]);
    await expect(
      store.appendEvent({ ...key, event: userTextEvent({ text: 'x' }) }),
    ).rejects.toThrow(/only reads/);
  });
});
