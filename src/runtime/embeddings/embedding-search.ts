/**
 * `withEmbeddingSearch`: a `SessionService` whose `searchEvents` ranks by reciprocal-rank
 * fusion of the store's lexical hits and cosine similarity over event vectors, so a paraphrase
 * that shares no word with the event is found and an exact identifier still ranks first. Every
 * other method passes through; the record stays in the store, the vectors are derived data in
 * an `EmbeddingIndex`, computed at search time for events appended since the last search.
 * Search never fails because of embeddings: the lexical hits are returned and the failure
 * reported. See docs/architecture.md#storage.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import type { Logger } from 'pino';
import { InvalidArgumentError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import { createRuntimeLogger } from '../../observability/compaction-log.js';
import { maskLogValue } from '../../observability/masked-logger.js';
import { maskCredentials } from '../../redaction/index.js';
import {
  MAX_SEARCH_LIMIT,
  type ResolvedSearch,
  resolveSearchOptions,
  searchTerms,
} from '../../sessions/search-text.js';
import type {
  SearchEventsOptions,
  SearchHit,
  SessionService,
} from '../../sessions/session-service.js';
import { capText } from '../../summarizers/cap-text.js';
import { embedTexts } from './embed-texts.js';
import type { EmbeddingIndex } from './embedding-index.js';
import { EmbeddingError, positiveInteger } from './errors.js';
import { eventKey, fuseRankings, rankByVector } from './fused-ranking.js';
import { InMemoryEmbeddingIndex } from './in-memory-embedding-index.js';
import { indexSessionEvents } from './index-session-events.js';
import { materializeHits } from './materialize-hits.js';

/** Default cap of texts per embedding call (the model's own limit applies when lower). */
export const DEFAULT_MAX_EMBEDDINGS_PER_CALL = 64;
/** Default cap of events read (and embedded) by one search. */
export const DEFAULT_MAX_EVENTS_TO_INDEX_PER_SEARCH = 512;
/** Default cap of one event's embedded text, in characters (head and tail kept). */
export const DEFAULT_MAX_EMBEDDED_TEXT_CHARS = 4000;
/** Default timeout of one embedding call. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;

export interface EmbeddingSearchOptions {
  /** The store searched and passed through to. */
  sessionService: SessionService;
  /** An AI SDK embedding model, e.g. `openai.embedding('text-embedding-3-small')`. */
  embeddingModel: EmbeddingModelV3;
  /** Where vectors live; default a new `InMemoryEmbeddingIndex` (bounded). One per model. */
  index?: EmbeddingIndex;
  /** Texts per embedding call at most (default 64, lowered to the model's own limit). */
  maxEmbeddingsPerCall?: number;
  /**
   * Events one search reads and embeds at most (default 512), over every session searched: the
   * first search of a long session indexes its oldest events, later searches the rest. Events
   * not indexed yet are still found by their words.
   */
  maxEventsToIndexPerSearch?: number;
  /** Characters of one event's text embedded at most (default 4000, head and tail kept). */
  maxTextChars?: number;
  /** One embedding call's timeout in ms (default 30,000). */
  embeddingTimeoutMs?: number;
  /** Vectors at or below this cosine similarity to the query are no hits (default 0). */
  minSimilarity?: number;
  /** Told when a search fell back to lexical hits; credentials masked. Must not throw. */
  onEmbeddingError?: (error: EmbeddingError) => void;
  /** A pino logger (masked), `false` for none; default a `warn` logger on stderr. */
  logger?: Logger | false;
}

interface Settings {
  inner: SessionService;
  model: EmbeddingModelV3;
  index: EmbeddingIndex;
  maxEmbeddingsPerCall: number;
  maxEventsToIndexPerSearch: number;
  maxTextChars: number;
  timeoutMs: number;
  minSimilarity: number;
  report: (error: EmbeddingError, search: ResolvedSearch) => void;
}

function similarityBound(value: number | undefined): number {
  const resolved = value ?? 0;
  if (!Number.isFinite(resolved) || resolved < -1 || resolved >= 1) {
    throw new InvalidArgumentError({
      argument: 'minSimilarity',
      message: `must be a number from -1 to below 1, got ${value}`,
      value,
    });
  }
  return resolved;
}

function sessionKeyString(key: SessionKey): string {
  return JSON.stringify([key.appName, key.userId, key.sessionId]);
}

/** Waits for `promise` to settle, whatever its outcome, or throws when `signal` aborts. */
async function settled(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<void>((_resolve, reject) => {
    onAbort = () => reject(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise.then(noop, noop), aborted]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

function noop(): void {}

function toEmbeddingError(
  error: unknown,
  model: EmbeddingModelV3,
  signal: AbortSignal | undefined,
): EmbeddingError {
  if (EmbeddingError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EmbeddingError({
    reason: signal?.aborted ? 'aborted' : 'index_error',
    provider: model.provider,
    modelId: model.modelId,
    message: maskCredentials(`embedding index failed: ${message}`),
    cause: maskLogValue(error),
  });
}

/** The hybrid search over one store (see the module comment). */
class HybridSearch {
  /** Indexing runs per session, so two searches of one session do not embed it twice. */
  private readonly indexing = new Map<string, Promise<number>>();
  private modelLimit?: Promise<number>;

  constructor(private readonly settings: Settings) {}

  async search(options: SearchEventsOptions): Promise<SearchHit[]> {
    const search = resolveSearchOptions(options);
    const { inner } = this.settings;
    const candidates = Math.min(MAX_SEARCH_LIMIT, Math.max(search.limit * 3, 30));
    const lexical = inner.searchEvents
      ? await inner.searchEvents({ ...options, limit: candidates })
      : await this.requireSession(search, options.signal);
    if (searchTerms(search.query).length === 0) return lexical.slice(0, search.limit);
    try {
      return await this.hybrid({ search, lexical, candidates, signal: options.signal });
    } catch (error) {
      this.settings.report(toEmbeddingError(error, this.settings.model, options.signal), search);
      return lexical.slice(0, search.limit);
    }
  }

  /** Without a lexical search, a missing session is still `SessionNotFoundError`. */
  private async requireSession(search: ResolvedSearch, signal?: AbortSignal): Promise<[]> {
    if (search.sessionId !== undefined) {
      await this.settings.inner.loadView({
        appName: search.appName,
        userId: search.userId,
        sessionId: search.sessionId,
        signal,
      });
    }
    return [];
  }

  private async hybrid(options: {
    search: ResolvedSearch;
    lexical: SearchHit[];
    candidates: number;
    signal?: AbortSignal;
  }): Promise<SearchHit[]> {
    const { search, lexical, signal } = options;
    const { model, index } = this.settings;
    const maxEmbeddingsPerCall = await this.maxEmbeddingsPerCall();
    const [query] = await embedTexts({
      model,
      texts: [capText({ text: search.query, maxChars: this.settings.maxTextChars })],
      maxEmbeddingsPerCall,
      timeoutMs: this.settings.timeoutMs,
      signal,
    });
    if (!query) return lexical.slice(0, search.limit);
    const sessionIds = await this.sessionsInScope(search, signal);
    let budget = this.settings.maxEventsToIndexPerSearch;
    for (const sessionId of sessionIds) {
      if (budget <= 0) break;
      const key = { appName: search.appName, userId: search.userId, sessionId };
      budget -= await this.indexSession({ key, search, budget, maxEmbeddingsPerCall, signal });
    }
    const sessions = await Promise.all(
      sessionIds.map(async (sessionId) => ({
        sessionId,
        vectors: await index.get({
          appName: search.appName,
          userId: search.userId,
          sessionId,
          afterSeq: search.afterSeq,
          beforeSeq: search.beforeSeq,
          signal,
        }),
      })),
    );
    const vectorRanking = rankByVector({
      query,
      sessions,
      minSimilarity: this.settings.minSimilarity,
    });
    const fused = fuseRankings({
      lexical,
      vectorRanking,
      vectorCandidates: options.candidates,
    });
    return materializeHits({
      sessionService: this.settings.inner,
      index,
      search,
      fused,
      lexical,
      eventIds: new Map(vectorRanking.map((item) => [eventKey(item), item.eventId])),
      signal,
    });
  }

  /** The session searched, or every session of the user in the app, newest first. */
  private async sessionsInScope(search: ResolvedSearch, signal?: AbortSignal): Promise<string[]> {
    if (search.sessionId !== undefined) return [search.sessionId];
    const sessions = await this.settings.inner.listSessions({
      appName: search.appName,
      userId: search.userId,
      signal,
    });
    return [...sessions]
      .sort((a, b) => b.lastUpdateTime - a.lastUpdateTime)
      .map((session) => session.sessionId);
  }

  private async indexSession(options: {
    key: SessionKey;
    search: ResolvedSearch;
    budget: number;
    maxEmbeddingsPerCall: number;
    signal?: AbortSignal;
  }): Promise<number> {
    const { key, signal } = options;
    const name = sessionKeyString(key);
    const running = this.indexing.get(name);
    if (running) await settled(running, signal);
    const run = indexSessionEvents({
      sessionService: this.settings.inner,
      index: this.settings.index,
      model: this.settings.model,
      key,
      beforeSeq: options.search.beforeSeq,
      budget: options.budget,
      maxEmbeddingsPerCall: options.maxEmbeddingsPerCall,
      maxTextChars: this.settings.maxTextChars,
      timeoutMs: this.settings.timeoutMs,
      signal,
    });
    this.indexing.set(name, run);
    try {
      return await run;
    } finally {
      if (this.indexing.get(name) === run) this.indexing.delete(name);
    }
  }

  /** The configured cap, lowered to the model's own limit (read once). */
  private maxEmbeddingsPerCall(): Promise<number> {
    this.modelLimit ??= Promise.resolve(this.settings.model.maxEmbeddingsPerCall).then(
      (limit) => {
        const configured = this.settings.maxEmbeddingsPerCall;
        return typeof limit === 'number' && limit >= 1 ? Math.min(configured, limit) : configured;
      },
      () => this.settings.maxEmbeddingsPerCall,
    );
    return this.modelLimit;
  }
}

/**
 * `sessionService` with hybrid history search (lexical + embeddings). Every other method,
 * optional capabilities included, passes through unchanged; `deleteSession` also forgets the
 * session's vectors.
 */
export function withEmbeddingSearch(options: EmbeddingSearchOptions): SessionService {
  const inner = options.sessionService;
  const model = options.embeddingModel;
  const logger = createRuntimeLogger({ logger: options.logger });
  const index = options.index ?? new InMemoryEmbeddingIndex();
  const onEmbeddingError = options.onEmbeddingError;
  const hybrid = new HybridSearch({
    inner,
    model,
    index,
    maxEmbeddingsPerCall: positiveInteger(
      'maxEmbeddingsPerCall',
      options.maxEmbeddingsPerCall,
      DEFAULT_MAX_EMBEDDINGS_PER_CALL,
    ),
    maxEventsToIndexPerSearch: positiveInteger(
      'maxEventsToIndexPerSearch',
      options.maxEventsToIndexPerSearch,
      DEFAULT_MAX_EVENTS_TO_INDEX_PER_SEARCH,
    ),
    maxTextChars: positiveInteger(
      'maxTextChars',
      options.maxTextChars,
      DEFAULT_MAX_EMBEDDED_TEXT_CHARS,
    ),
    timeoutMs: positiveInteger(
      'embeddingTimeoutMs',
      options.embeddingTimeoutMs,
      DEFAULT_EMBEDDING_TIMEOUT_MS,
    ),
    minSimilarity: similarityBound(options.minSimilarity),
    report: (error, search) => {
      logger.warn(
        {
          reason: error.reason,
          provider: error.provider,
          modelId: error.modelId,
          appName: search.appName,
          userId: search.userId,
          sessionId: search.sessionId,
          error: error.message,
        },
        'embedding search failed: lexical hits only',
      );
      try {
        onEmbeddingError?.(error);
      } catch (hookError) {
        logger.warn({ error: String(hookError) }, 'onEmbeddingError hook threw');
      }
    },
  });
  const service: SessionService = {
    createSession: (call) => inner.createSession(call),
    getSession: (call) => inner.getSession(call),
    loadView: (call) => inner.loadView(call),
    listEvents: (call) => inner.listEvents(call),
    appendEvent: (call) => inner.appendEvent(call),
    appendCompaction: (call) => inner.appendCompaction(call),
    listSessions: (call) => inner.listSessions(call),
    deleteSession: async (call) => {
      await inner.deleteSession(call);
      await index.deleteSession(call);
    },
    searchEvents: (call) => hybrid.search(call),
  };
  const { listAllSessions, acquireLease, importSession, close } = inner;
  if (listAllSessions) service.listAllSessions = (call) => listAllSessions.call(inner, call);
  if (acquireLease) service.acquireLease = (call) => acquireLease.call(inner, call);
  if (importSession) service.importSession = (call) => importSession.call(inner, call);
  if (close) service.close = () => close.call(inner);
  return service;
}
