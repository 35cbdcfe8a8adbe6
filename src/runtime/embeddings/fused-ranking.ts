/**
 * Hybrid ranking (docs/architecture.md#storage): reciprocal-rank fusion of the store's lexical
 * ranking and a cosine ranking over event vectors. RRF adds `1 / (RRF_RANK_CONSTANT + rank)`
 * per list an event is in, so it needs no common scale between BM25, `ts_rank_cd` and cosine.
 * An event both lists rank high wins; ties go to the lexical ranking, so an exact identifier
 * that the words find first stays first.
 */
import type { IndexedVector } from './embedding-index.js';

/** The usual RRF constant (Cormack et al. 2009): damps the head of each list. */
export const RRF_RANK_CONSTANT = 60;

/** An event found by a list: where (session, seq) and, for vector hits, the event's id. */
export interface RankedEvent {
  sessionId: string;
  seq: number;
}

export interface VectorCandidate extends RankedEvent {
  eventId: string;
  similarity: number;
}

export interface FusedEvent extends RankedEvent {
  score: number;
  /** 1-based rank in the lexical list; absent when the words did not find it. */
  lexicalRank?: number;
  vectorRank?: number;
}

/** One string per (session, seq): the key both rankings meet on. */
export function eventKey(event: RankedEvent): string {
  return `${event.seq}\u0000${event.sessionId}`;
}

/** Dot product of two unit vectors (cosine similarity); `undefined` when dimensions differ. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number | undefined {
  if (a.length !== b.length) return undefined;
  let sum = 0;
  // Within bounds by the loop: `!` keeps the hot loop free of undefined checks.
  for (let index = 0; index < a.length; index++) sum += a[index]! * b[index]!;
  return sum;
}

/**
 * Every vector of the scope ranked by similarity to the query, best first (ties: the later
 * seq); those at or below `minSimilarity` and those of another dimension are left out.
 */
export function rankByVector(options: {
  query: Float32Array;
  sessions: ReadonlyArray<{ sessionId: string; vectors: readonly IndexedVector[] }>;
  minSimilarity: number;
}): VectorCandidate[] {
  const ranked: VectorCandidate[] = [];
  for (const { sessionId, vectors } of options.sessions) {
    for (const { seq, eventId, vector } of vectors) {
      const similarity = cosineSimilarity(options.query, vector);
      if (similarity === undefined || similarity <= options.minSimilarity) continue;
      ranked.push({ sessionId, seq, eventId, similarity });
    }
  }
  return ranked.sort((a, b) => b.similarity - a.similarity || b.seq - a.seq);
}

/**
 * The union of both lists, best fused score first. `vectorRanking` is the whole ranking of
 * the scope (so a lexical hit gets its vector rank wherever it is); only its first
 * `vectorCandidates` enter the union on their own.
 */
export function fuseRankings(options: {
  lexical: readonly RankedEvent[];
  vectorRanking: readonly RankedEvent[];
  vectorCandidates: number;
}): FusedEvent[] {
  const fused = new Map<string, FusedEvent>();
  options.lexical.forEach((event, index) => {
    const rank = index + 1;
    fused.set(eventKey(event), {
      sessionId: event.sessionId,
      seq: event.seq,
      score: 1 / (RRF_RANK_CONSTANT + rank),
      lexicalRank: rank,
    });
  });
  options.vectorRanking.forEach((event, index) => {
    const rank = index + 1;
    const key = eventKey(event);
    const known = fused.get(key);
    if (known) {
      known.score += 1 / (RRF_RANK_CONSTANT + rank);
      known.vectorRank = rank;
    } else if (rank <= options.vectorCandidates) {
      fused.set(key, {
        sessionId: event.sessionId,
        seq: event.seq,
        score: 1 / (RRF_RANK_CONSTANT + rank),
        vectorRank: rank,
      });
    }
  });
  const lexicalOrder = (event: FusedEvent) => event.lexicalRank ?? Number.MAX_SAFE_INTEGER;
  return [...fused.values()].sort(
    (a, b) => b.score - a.score || lexicalOrder(a) - lexicalOrder(b) || b.seq - a.seq,
  );
}
