import { describe, expect, it } from 'vitest';
import type { IndexedVector } from './embedding-index.js';
import { InMemoryEmbeddingIndex } from './in-memory-embedding-index.js';

const user = { appName: 'a', userId: 'u' };

function vectors(seqs: number[]): IndexedVector[] {
  return seqs.map((seq) => ({ seq, eventId: `e${seq}`, vector: new Float32Array([1, 0]) }));
}

async function seqsOf(index: InMemoryEmbeddingIndex, sessionId: string) {
  return (await index.get({ ...user, sessionId })).map((vector) => vector.seq);
}

describe('InMemoryEmbeddingIndex', () => {
  it('keeps a prefix per session: idempotent puts, never moving back', async () => {
    const index = new InMemoryEmbeddingIndex();
    const key = { ...user, sessionId: 's' };
    expect(await index.indexedThrough(key)).toBe(0);
    await index.put({ ...key, vectors: vectors([1, 3]), throughSeq: 4 });
    await index.put({ ...key, vectors: vectors([3, 5]), throughSeq: 2 });
    expect(await index.indexedThrough(key)).toBe(4);
    expect(await seqsOf(index, 's')).toEqual([1, 3]);
    await index.put({ ...key, vectors: vectors([5, 6]), throughSeq: 6 });
    expect(await seqsOf(index, 's')).toEqual([1, 3, 5, 6]);
    expect((await index.get({ ...key, afterSeq: 1, beforeSeq: 6 })).map((v) => v.seq)).toEqual([
      3, 5,
    ]);
    // Scoped by user: the same session id of another user is another session.
    expect(await index.get({ ...key, userId: 'other' })).toEqual([]);
    await index.deleteSession(key);
    expect(index.size).toBe(0);
    expect(await index.indexedThrough(key)).toBe(0);
  });

  it('forgets the least recently used sessions past maxVectors', async () => {
    const index = new InMemoryEmbeddingIndex({ maxVectors: 4 });
    await index.put({ ...user, sessionId: 'old', vectors: vectors([1, 2]), throughSeq: 2 });
    await index.put({ ...user, sessionId: 'used', vectors: vectors([1, 2]), throughSeq: 2 });
    await index.get({ ...user, sessionId: 'old' }); // now the most recently used
    await index.put({ ...user, sessionId: 'new', vectors: vectors([1, 2]), throughSeq: 2 });
    expect(index.size).toBe(4);
    expect(await index.indexedThrough({ ...user, sessionId: 'used' })).toBe(0);
    expect(await seqsOf(index, 'old')).toEqual([1, 2]);
    expect(await seqsOf(index, 'new')).toEqual([1, 2]);
  });

  it('keeps the newest vectors of a session larger than the bound', async () => {
    const index = new InMemoryEmbeddingIndex({ maxVectors: 3 });
    await index.put({ ...user, sessionId: 's', vectors: vectors([1, 2, 3, 4, 5]), throughSeq: 5 });
    expect(index.size).toBe(3);
    expect(await seqsOf(index, 's')).toEqual([3, 4, 5]);
    expect(await index.indexedThrough({ ...user, sessionId: 's' })).toBe(5);
  });

  it('remembers at most maxSessions sessions', async () => {
    const index = new InMemoryEmbeddingIndex({ maxSessions: 2 });
    for (const sessionId of ['one', 'two', 'three']) {
      await index.put({ ...user, sessionId, vectors: [], throughSeq: 7 });
    }
    expect(await index.indexedThrough({ ...user, sessionId: 'one' })).toBe(0);
    expect(await index.indexedThrough({ ...user, sessionId: 'three' })).toBe(7);
  });

  it('names a bad bound', () => {
    expect(() => new InMemoryEmbeddingIndex({ maxVectors: 0 })).toThrow(/maxVectors/);
    expect(() => new InMemoryEmbeddingIndex({ maxSessions: 2.5 })).toThrow(/maxSessions/);
  });
});
