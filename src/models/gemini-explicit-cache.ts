/**
 * Gemini explicit caching of a session's stable prefix (docs/cost.md#gemini-explicit-caching):
 * the system instruction, the tool declarations and the compaction summary go into one
 * `cachedContents` resource, reused while they stay byte for byte the same, replaced (the old
 * one deleted) when a compaction changes the summary, and created only when the cost model says
 * it pays (`explicitCacheDecision`). A request that uses it sends none of them again: the
 * Gemini API refuses `systemInstruction`, `tools` or `toolConfig` beside `cachedContent`, and
 * the AI SDK's Google provider passes them through unchanged when they are in the call.
 *
 * How many requests a prefix will serve is not known in advance: the estimate is the number the
 * session's previous prefix served (compactions of one session tend to come at a similar pace),
 * or, before there is one, as many again as this prefix has served so far (the scale-free guess
 * cost-aware compaction also makes), capped by the requests expected within the TTL at the
 * session's pace so far. A failure never fails the turn: the request goes uncached, the failure
 * is logged, and the same prefix is not tried again.
 */
import { createHash } from 'node:crypto';
import { estimateTextTokens } from '../compaction/token-estimate.js';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import { geminiMinimumTokens } from '../costs/default-policy.js';
import {
  type ExplicitCacheDecision,
  explicitCacheDecision,
  geminiStoragePerMTokHour,
} from '../costs/gemini-explicit.js';
import type { TokenPrices } from '../costs/types.js';
import type { Content } from '../events/types.js';
import { errorMessage } from '../util/error-message.js';
import { ModelConfigError } from './errors.js';
import {
  type CachedPrefix,
  createCachedContent,
  deleteCachedContent,
  type GeminiApiSettings,
} from './gemini-cached-content.js';
import { lookupModelPrice } from './price-catalog.js';
import type { ModelRequest } from './types.js';

/** pino-compatible: `logger.info({ ...fields }, message)`. */
export interface GeminiCacheLogger {
  info?(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface GeminiExplicitCacheOptions {
  /** Seconds each cache lives (its `ttl`, billed as storage). Default 300. */
  ttlSeconds?: number;
  /** Storage in USD per million tokens per hour. Default: `geminiStoragePerMTokHour(model)`. */
  storagePerMTokHour?: number;
  /** Token prices. Default: the catalog's for the model (`lookupModelPrice`). */
  prices?: TokenPrices;
  /** The smallest prefix cached, in tokens. Default: `geminiMinimumTokens(model)`. */
  minimumTokens?: number;
  /** Where creations, skips and failures are logged. Default: failures to `console.warn`. */
  logger?: GeminiCacheLogger;
  /** Sessions tracked at once; the least recently used is forgotten first. Default 1000. */
  maxSessions?: number;
  /** The clock in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
}

/** `fromAiSdk`'s `geminiExplicitCache`: where the Gemini API is, and the options above. */
export interface GeminiExplicitCacheSettings extends GeminiExplicitCacheOptions {
  apiKey: string;
  /** Default `https://generativelanguage.googleapis.com/v1beta` (the AI SDK's). */
  baseURL?: string;
  /** Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
}

export const GEMINI_API_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/** What a request becomes with a cache: its name and the request without the cached prefix. */
export interface CachedRequest {
  cachedContent: string;
  request: ModelRequest;
}

interface LiveCache {
  name: string;
  prefixKey: string;
  expiresAt: number;
}

interface SessionState {
  prefixKey?: string;
  /** Requests this prefix has served so far (this one included). */
  requestsWithPrefix: number;
  /** Requests the previous prefix served. */
  previousPrefixRequests?: number;
  firstRequestAt?: number;
  lastRequestAt?: number;
  requestCount: number;
  cache?: LiveCache;
  /** A prefix whose cache failed to be created: not tried again. */
  failedPrefixKey?: string;
  /** Requests of one session are prepared one at a time (one creation per prefix). */
  queue: Promise<unknown>;
}

const consoleLogger: GeminiCacheLogger = {
  warn: (fields, message) => console.warn(`orrery: ${message}`, fields),
};

export class GeminiExplicitCache {
  private readonly model: string;
  private readonly api: GeminiApiSettings;
  private readonly ttlSeconds: number;
  private readonly minimumTokens: number;
  private readonly storagePerMTokHour?: number;
  private readonly logger: GeminiCacheLogger;
  private readonly maxSessions: number;
  private readonly now: () => number;
  private readonly sessions = new Map<string, SessionState>();
  private prices?: Promise<TokenPrices | undefined>;
  private readonly givenPrices?: TokenPrices;
  private disabledReason?: string;

  constructor(options: { model: string; settings: GeminiExplicitCacheSettings }) {
    const { model, settings } = options;
    this.model = model.replace(/^models\//, '');
    const ttl = settings.ttlSeconds ?? 300;
    if (!Number.isInteger(ttl) || ttl < 1) {
      throw new ModelConfigError({
        variable: 'geminiExplicitCache.ttlSeconds',
        value: String(ttl),
        message: `geminiExplicitCache.ttlSeconds must be a whole number of seconds >= 1, got ${String(ttl)}`,
      });
    }
    const storage = settings.storagePerMTokHour ?? geminiStoragePerMTokHour(this.model);
    if (storage !== undefined && !(Number.isFinite(storage) && storage >= 0)) {
      throw new ModelConfigError({
        variable: 'geminiExplicitCache.storagePerMTokHour',
        value: String(storage),
        message: `geminiExplicitCache.storagePerMTokHour must be a number >= 0, got ${String(storage)}`,
      });
    }
    if (settings.apiKey === '') {
      throw new ModelConfigError({
        variable: 'geminiExplicitCache.apiKey',
        message: 'geminiExplicitCache.apiKey is empty: the cachedContents API needs the Gemini key',
      });
    }
    this.api = {
      apiKey: settings.apiKey,
      baseURL: (settings.baseURL ?? GEMINI_API_BASE_URL).replace(/\/+$/, ''),
      fetch: settings.fetch ?? globalThis.fetch,
    };
    this.ttlSeconds = ttl;
    this.minimumTokens = settings.minimumTokens ?? geminiMinimumTokens(this.model);
    this.storagePerMTokHour = storage;
    this.givenPrices = settings.prices;
    this.logger = settings.logger ?? consoleLogger;
    this.maxSessions = settings.maxSessions ?? 1000;
    this.now = settings.now ?? Date.now;
  }

  /**
   * The request to send: with a cache (its name, the request without the prefix it holds), or
   * `undefined` to send the request as it is. Never throws but for an aborted `signal`.
   */
  async prepare(request: ModelRequest): Promise<CachedRequest | undefined> {
    const key = request.cacheKey;
    if (key === undefined || this.disabledReason !== undefined) return undefined;
    const state = this.session(key);
    const run = state.queue.then(() => this.prepareInSession(state, request));
    state.queue = run.catch(() => undefined);
    return run;
  }

  /** Forget a session's cache (the API refused it, e.g. expired early): the next request recreates. */
  invalidate(cacheKey: string, name: string): void {
    const state = this.sessions.get(cacheKey);
    if (state?.cache?.name === name) {
      state.failedPrefixKey = state.cache.prefixKey;
      state.cache = undefined;
    }
  }

  private session(key: string): SessionState {
    let state = this.sessions.get(key);
    if (state) {
      this.sessions.delete(key);
    } else {
      state = { requestsWithPrefix: 0, requestCount: 0, queue: Promise.resolve() };
    }
    this.sessions.set(key, state);
    // The oldest session is forgotten; its cache expires at its TTL.
    if (this.sessions.size > this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    return state;
  }

  private async prepareInSession(
    state: SessionState,
    request: ModelRequest,
  ): Promise<CachedRequest | undefined> {
    request.signal?.throwIfAborted();
    const split = splitPrefix(request);
    if (!split) return undefined;
    const prefixKey = prefixKeyOf(this.model, split.prefix);
    const now = this.now();
    if (state.prefixKey !== prefixKey) {
      if (state.prefixKey !== undefined) state.previousPrefixRequests = state.requestsWithPrefix;
      state.prefixKey = prefixKey;
      state.requestsWithPrefix = 0;
      const old = state.cache;
      state.cache = undefined;
      if (old) await this.remove(old, request.cacheKey);
    }
    state.requestsWithPrefix++;
    state.requestCount++;
    state.firstRequestAt ??= now;
    state.lastRequestAt = now;
    const cache = state.cache;
    if (cache && cache.prefixKey === prefixKey && now < cache.expiresAt - this.marginMs()) {
      return { cachedContent: cache.name, request: split.rest };
    }
    if (state.failedPrefixKey === prefixKey) return undefined;
    const decision = await this.decide(state, split.prefixTokens);
    if (!decision) return undefined;
    if (!decision.pays) {
      this.logger.info?.(
        {
          cacheKey: request.cacheKey,
          reason: decision.reason,
          prefixTokens: split.prefixTokens,
          expectedReads: decision.expectedReads,
          uncachedUsd: decision.uncachedUsd,
          cachedUsd: decision.cachedUsd,
        },
        'gemini explicit cache skipped: it would not pay',
      );
      return undefined;
    }
    try {
      const created = await createCachedContent({
        settings: this.api,
        prefix: { ...split.prefix, model: this.model, ttlSeconds: this.ttlSeconds },
        signal: request.signal,
      });
      state.cache = { name: created.name, prefixKey, expiresAt: now + this.ttlSeconds * 1000 };
      this.logger.info?.(
        {
          cacheKey: request.cacheKey,
          cacheName: created.name,
          prefixTokens: created.totalTokenCount ?? split.prefixTokens,
          expectedReads: decision.expectedReads,
          ttlSeconds: this.ttlSeconds,
        },
        'gemini explicit cache created',
      );
      return { cachedContent: created.name, request: split.rest };
    } catch (error) {
      request.signal?.throwIfAborted();
      state.failedPrefixKey = prefixKey;
      this.logger.warn(
        { cacheKey: request.cacheKey, err: error, error: errorMessage(error) },
        'gemini explicit cache not created: the request goes uncached',
      );
      return undefined;
    }
  }

  /** A cache of a replaced prefix is deleted (storage is billed until it goes). */
  private async remove(cache: LiveCache, cacheKey: string | undefined): Promise<void> {
    if (this.now() >= cache.expiresAt) return;
    try {
      await deleteCachedContent({ settings: this.api, name: cache.name });
    } catch (error) {
      this.logger.warn(
        { cacheKey, cacheName: cache.name, err: error, error: errorMessage(error) },
        'gemini explicit cache not deleted: it expires at its TTL',
      );
    }
  }

  /** A cache this close to its expiry is not reused: a request must not outlive its cache. */
  private marginMs(): number {
    return Math.min(30_000, this.ttlSeconds * 100);
  }

  private async decide(
    state: SessionState,
    prefixTokens: number,
  ): Promise<(ExplicitCacheDecision & { expectedReads: number }) | undefined> {
    const prices = await this.loadPrices();
    if (!prices) return undefined;
    if (this.storagePerMTokHour === undefined) {
      this.disable(
        `no storage price for ${this.model}: set geminiExplicitCache.storagePerMTokHour`,
      );
      return undefined;
    }
    const expectedReads = Math.min(
      Math.max(state.requestsWithPrefix, state.previousPrefixRequests ?? 0),
      this.readsWithinTtl(state),
    );
    const decision = explicitCacheDecision({
      prices,
      prefixTokens,
      expectedReads,
      ttlSeconds: this.ttlSeconds,
      storagePerMTokHour: this.storagePerMTokHour,
      minimumTokens: this.minimumTokens,
    });
    return { ...decision, expectedReads };
  }

  /** Requests expected within one TTL at the session's pace so far (unbounded before a gap). */
  private readsWithinTtl(state: SessionState): number {
    const span = (state.lastRequestAt ?? 0) - (state.firstRequestAt ?? 0);
    if (state.requestCount < 2 || span <= 0) return Number.POSITIVE_INFINITY;
    const gapMs = span / (state.requestCount - 1);
    return Math.floor((this.ttlSeconds * 1000) / gapMs) + 1;
  }

  private loadPrices(): Promise<TokenPrices | undefined> {
    if (this.givenPrices) return Promise.resolve(this.givenPrices);
    this.prices ??= lookupModelPrice({ provider: 'google', model: this.model }).then(
      (price) => price.prices,
      (error) => {
        this.disable(`no catalog price for google:${this.model} (${errorMessage(error)})`);
        return undefined;
      },
    );
    return this.prices;
  }

  private disable(reason: string): void {
    if (this.disabledReason !== undefined) return;
    this.disabledReason = reason;
    this.logger.warn({ model: this.model, reason }, 'gemini explicit cache off for this model');
  }
}

/** A request's stable prefix and the rest of it, or `undefined` when it has nothing to cache. */
export function splitPrefix(
  request: ModelRequest,
):
  | { prefix: Omit<CachedPrefix, 'model' | 'ttlSeconds'>; prefixTokens: number; rest: ModelRequest }
  | undefined {
  const contents = [...request.contents];
  let summaryText: string | undefined;
  // The summary is the first user content's first part when there is one (`assembleView`).
  const first = contents[0];
  const summaryAt =
    first?.role === 'user'
      ? first.parts.findIndex((part) => part.text?.startsWith(SUMMARY_PREFIX) === true)
      : -1;
  if (first && summaryAt === 0) {
    summaryText = first.parts[0]?.text;
    const parts = first.parts.slice(1);
    if (parts.length > 0) contents[0] = { ...first, parts } as Content;
    else contents.shift();
  }
  const tools = request.tools ?? [];
  const system = request.systemInstruction || undefined;
  if (system === undefined && tools.length === 0 && summaryText === undefined) return undefined;
  // The API needs at least one content beside a cache.
  if (contents.length === 0) return undefined;
  const prefixTokens =
    (system ? estimateTextTokens(system) : 0) +
    (tools.length > 0 ? estimateTextTokens(JSON.stringify(tools)) : 0) +
    (summaryText ? estimateTextTokens(summaryText) : 0);
  const { systemInstruction: _system, tools: _tools, ...restOfRequest } = request;
  return {
    prefix: {
      ...(system !== undefined && { systemInstruction: system }),
      ...(tools.length > 0 && { tools }),
      ...(summaryText !== undefined && { summaryText }),
    },
    prefixTokens,
    rest: { ...restOfRequest, contents },
  };
}

function prefixKeyOf(model: string, prefix: Omit<CachedPrefix, 'model' | 'ttlSeconds'>): string {
  return createHash('sha256')
    .update(JSON.stringify({ model, ...prefix }))
    .digest('hex');
}
