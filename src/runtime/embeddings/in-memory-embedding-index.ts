/**
 * The default `EmbeddingIndex`: vectors in process memory, bounded. Past `maxVectors` the
 * least recently used sessions are forgotten whole (a later search indexes them again); a single
 * session over the bound keeps its newest vectors, so its oldest events are then found by words
 * only. Vectors are `Float32Array`s: 1536 dimensions take 6 KB, so the default bound of 10,000
 * vectors is about 60 MB. See docs/architecture.md#storage.
 */
import type { SessionKey } from '../../events/types.js';
import type {
  EmbeddingIndex,
  GetVectorsOptions,
  IndexedVector,
  PutVectorsOptions,
} from './embedding-index.js';
import { positiveInteger } from './errors.js';

/** Default bound on the vectors held, over every session. */
export const DEFAULT_MAX_INDEXED_VECTORS = 10_000;
/** Default bound on the sessions remembered (including those with no vector). */
export const DEFAULT_MAX_INDEXED_SESSIONS = 10_000;

export interface InMemoryEmbeddingIndexOptions {
  /** Vectors held at most, over every session (default 10,000). */
  maxVectors?: number;
  /** Sessions remembered at most (default 10,000). */
  maxSessions?: number;
}

interface SessionVectors {
  indexedThrough: number;
  /** `seq` ascending. */
  vectors: IndexedVector[];
}

function keyOf(options: SessionKey): string {
  return JSON.stringify([options.appName, options.userId, options.sessionId]);
}

export class InMemoryEmbeddingIndex implements EmbeddingIndex {
  private readonly maxVectors: number;
  private readonly maxSessions: number;
  /** Insertion order is recency: a session read or written moves to the end. */
  private readonly sessions = new Map<string, SessionVectors>();
  private vectorCount = 0;

  constructor(options: InMemoryEmbeddingIndexOptions = {}) {
    this.maxVectors = positiveInteger(
      'maxVectors',
      options.maxVectors,
      DEFAULT_MAX_INDEXED_VECTORS,
    );
    this.maxSessions = positiveInteger(
      'maxSessions',
      options.maxSessions,
      DEFAULT_MAX_INDEXED_SESSIONS,
    );
  }

  /** Vectors held now, over every session. */
  get size(): number {
    return this.vectorCount;
  }

  async indexedThrough(options: SessionKey & { signal?: AbortSignal }): Promise<number> {
    options.signal?.throwIfAborted();
    return this.touch(keyOf(options))?.indexedThrough ?? 0;
  }

  async put(options: PutVectorsOptions): Promise<void> {
    options.signal?.throwIfAborted();
    const key = keyOf(options);
    let session = this.touch(key);
    if (!session) {
      session = { indexedThrough: 0, vectors: [] };
      this.sessions.set(key, session);
    }
    for (const vector of options.vectors) {
      if (vector.seq <= session.indexedThrough || vector.seq > options.throughSeq) continue;
      const last = session.vectors[session.vectors.length - 1];
      if (last && vector.seq <= last.seq) continue;
      session.vectors.push(vector);
      this.vectorCount++;
    }
    session.indexedThrough = Math.max(session.indexedThrough, options.throughSeq);
    this.evict(key);
  }

  async get(options: GetVectorsOptions): Promise<IndexedVector[]> {
    options.signal?.throwIfAborted();
    const session = this.touch(keyOf(options));
    if (!session) return [];
    const after = options.afterSeq ?? 0;
    const before = options.beforeSeq ?? Number.MAX_SAFE_INTEGER;
    return session.vectors.filter((vector) => vector.seq > after && vector.seq < before);
  }

  async deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void> {
    const key = keyOf(options);
    const session = this.sessions.get(key);
    if (!session) return;
    this.vectorCount -= session.vectors.length;
    this.sessions.delete(key);
  }

  /** The session, moved to the most recently used end. */
  private touch(key: string): SessionVectors | undefined {
    const session = this.sessions.get(key);
    if (session) {
      this.sessions.delete(key);
      this.sessions.set(key, session);
    }
    return session;
  }

  /** Forgets the least recently used sessions, then `current`'s oldest vectors, to fit. */
  private evict(current: string): void {
    for (const [key, session] of this.sessions) {
      if (this.vectorCount <= this.maxVectors && this.sessions.size <= this.maxSessions) return;
      if (key === current) continue;
      this.vectorCount -= session.vectors.length;
      this.sessions.delete(key);
    }
    const session = this.sessions.get(current);
    if (session && this.vectorCount > this.maxVectors) {
      const excess = this.vectorCount - this.maxVectors;
      session.vectors.splice(0, excess);
      this.vectorCount -= excess;
    }
  }
}
