/**
 * Where `withEmbeddingSearch` keeps event vectors: derived data only, never the record (the
 * events stay in the session store; a lost index is rebuilt from them by later searches). Each
 * session is indexed as a prefix: every event with `seq <= indexedThrough` has been read, and
 * those with searchable text have a vector. See docs/architecture.md#storage.
 */
import type { SessionKey } from '../../events/types.js';

/** One event's vector. */
export interface IndexedVector {
  seq: number;
  /** The event's `id`: a vector whose event no longer has this id is stale (session recreated). */
  eventId: string;
  /** Unit length (the caller normalizes), so cosine similarity is a dot product. */
  vector: Float32Array;
}

export interface PutVectorsOptions extends SessionKey {
  /** Vectors of events after the session's `indexedThrough`, `seq` ascending. */
  vectors: readonly IndexedVector[];
  /** The session is indexed through this seq now (events without text have no vector). */
  throughSeq: number;
  signal?: AbortSignal;
}

export interface GetVectorsOptions extends SessionKey {
  /** Only vectors with `seq > afterSeq`. */
  afterSeq?: number;
  /** Only vectors with `seq < beforeSeq`. */
  beforeSeq?: number;
  signal?: AbortSignal;
}

/**
 * Vectors by app, user, session and seq. Implementations may forget (evict) vectors and whole
 * sessions to stay bounded: a forgotten session reads as `indexedThrough` 0 and is indexed
 * again. One index serves one embedding model: vectors of two models are not comparable.
 */
export interface EmbeddingIndex {
  /** The highest seq indexed for the session; 0 when none. */
  indexedThrough(options: SessionKey & { signal?: AbortSignal }): Promise<number>;
  /**
   * Adds vectors and moves `indexedThrough` forward. Idempotent: only vectors with
   * `indexedThrough < seq <= throughSeq` are added, and `throughSeq` never moves it back.
   */
  put(options: PutVectorsOptions): Promise<void>;
  /** The session's vectors within the bounds, `seq` ascending. */
  get(options: GetVectorsOptions): Promise<IndexedVector[]>;
  /** Forgets the session (deleted, or found stale). */
  deleteSession(options: SessionKey & { signal?: AbortSignal }): Promise<void>;
}
