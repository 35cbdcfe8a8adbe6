export type {
  EmbeddingIndex,
  GetVectorsOptions,
  IndexedVector,
  PutVectorsOptions,
} from './embedding-index.js';
export {
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  DEFAULT_MAX_EMBEDDED_TEXT_CHARS,
  DEFAULT_MAX_EMBEDDINGS_PER_CALL,
  DEFAULT_MAX_EVENTS_TO_INDEX_PER_SEARCH,
  type EmbeddingSearchOptions,
  withEmbeddingSearch,
} from './embedding-search.js';
export { EmbeddingError, type EmbeddingFailureReason } from './errors.js';
export {
  DEFAULT_MAX_INDEXED_SESSIONS,
  DEFAULT_MAX_INDEXED_VECTORS,
  InMemoryEmbeddingIndex,
  type InMemoryEmbeddingIndexOptions,
} from './in-memory-embedding-index.js';
