/**
 * Hybrid search (`withEmbeddingSearch`) over the in-memory store: what orrery adds to a search,
 * the provider's time left out (the embedding model here answers at once with seeded
 * 1,536-dimension vectors). Rows: the first search of a session (reads, projects, normalizes
 * and stores every event's vector: `maxEventsToIndexPerSearch` set to the session's size), and
 * later searches (the lexical search, one query embedding, cosine over every vector, fusion),
 * beside the lexical search alone. `ORRERY_BENCH_EMBEDDING_EVENTS` sets the session's size
 * (default 10,000: the in-memory index's default bound). The index's memory is measured after a
 * collection when run with `NODE_OPTIONS=--expose-gc` (otherwise it includes garbage).
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type { NewEvent } from '../src/events/types.js';
import { withEmbeddingSearch } from '../src/runtime/embeddings/embedding-search.js';
import { InMemoryEmbeddingIndex } from '../src/runtime/embeddings/in-memory-embedding-index.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { seededRandom as random } from './seeded-random.js';

const EVENTS = Number(process.env.ORRERY_BENCH_EMBEDDING_EVENTS ?? 10_000);
const DIMENSIONS = 1536;
const QUERIES = 50;

/** Answers at once: a vector seeded by the text's length and first characters. */
function instantModel(): EmbeddingModelV3 {
  return {
    specificationVersion: 'v3',
    provider: 'bench.embedding',
    modelId: 'seeded',
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      const embeddings = values.map((text) => {
        const next = random(text.length * 31 + (text.codePointAt(0) ?? 0));
        return Array.from({ length: DIMENSIONS }, () => next() - 0.5);
      });
      return { embeddings, warnings: [] };
    },
  };
}

const next = random(7);
const vocabulary = Array.from(
  { length: 2000 },
  (_, index) => `w${index}x${Math.floor(next() * 1e6)}`,
);
const words = (count: number) =>
  Array.from({ length: count }, () => vocabulary[Math.floor(vocabulary.length * next() ** 2)]).join(
    ' ',
  );

function event(index: number): NewEvent {
  return {
    id: `e${index}`,
    invocationId: `i${index}`,
    author: index % 2 === 0 ? 'user' : 'agent',
    timestamp: 1_700_000_000 + index,
    actions: {},
    content: { role: index % 2 === 0 ? 'user' : 'model', parts: [{ text: words(40) }] },
  };
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

/** Heap and array buffers in use, after a collection when `--expose-gc` allows one. */
function memoryInUse(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

export async function run(): Promise<void> {
  const key = { appName: 'bench', userId: 'u', sessionId: 's' };
  const store = new InMemorySessionService();
  await store.createSession(key);
  for (let index = 0; index < EVENTS; index++) {
    await store.appendEvent({ ...key, event: event(index) });
  }
  const index = new InMemoryEmbeddingIndex({ maxVectors: Math.max(EVENTS, 1) });
  const hybrid = withEmbeddingSearch({
    sessionService: store,
    embeddingModel: instantModel(),
    index,
    maxEmbeddingsPerCall: 256,
    maxEventsToIndexPerSearch: EVENTS,
    logger: false,
  });
  await store.searchEvents({ ...key, query: words(3) }); // the lexical index, built apart
  const heapBefore = memoryInUse();
  let started = performance.now();
  await hybrid.searchEvents?.({ ...key, query: words(3) });
  const firstMs = performance.now() - started;
  const heapAfter = memoryInUse();
  const lexical: number[] = [];
  const fused: number[] = [];
  for (let query = 0; query < QUERIES; query++) {
    const text = words(3);
    started = performance.now();
    await store.searchEvents({ ...key, query: text, limit: 30 });
    lexical.push(performance.now() - started);
    started = performance.now();
    await hybrid.searchEvents?.({ ...key, query: text });
    fused.push(performance.now() - started);
  }
  console.log(
    `${EVENTS} events, ${DIMENSIONS} dimensions, ${QUERIES} queries; index holds ${index.size} vectors`,
  );
  console.log('| search | p50 ms | p95 ms |');
  console.log('|---|---:|---:|');
  console.log(`| first (indexes every event) | ${firstMs.toFixed(0)} | |`);
  console.log(
    `| lexical alone (limit 30) | ${percentile(lexical, 0.5).toFixed(1)} | ${percentile(lexical, 0.95).toFixed(1)} |`,
  );
  console.log(
    `| hybrid, nothing new to index | ${percentile(fused, 0.5).toFixed(1)} | ${percentile(fused, 0.95).toFixed(1)} |`,
  );
  console.log(
    `index memory (heap + array buffers growth${(globalThis as { gc?: unknown }).gc ? '' : ', no --expose-gc: with garbage'}): ${((heapAfter - heapBefore) / 1e6).toFixed(0)} MB`,
  );
}
