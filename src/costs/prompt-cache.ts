/**
 * Which part of each request's prompt a provider bills as a cache read, a cache write or plain
 * input (docs/cost.md#the-cache-model-per-provider). Pure: a list of requests in, a split per
 * request out. Each policy follows its provider's documentation, quoted in docs/cost.md:
 *
 * - Anthropic: explicit `cache_control` breakpoints (at most 4). A request reads the longest
 *   cached breakpoint prefix it shares, and writes from there to its last breakpoint; a prefix
 *   shorter than the model's minimum is never cached. Entries live 5 minutes (or 1 hour),
 *   refreshed by each hit. Writes cost 1.25x input (2x for 1 hour), reads 0.1x (the catalog's
 *   prices).
 * - OpenAI: automatic prefix caching for prompts of 1024 tokens or more; the cached part is
 *   1024 tokens plus whole 128-token increments of the prefix shared with a recent request
 *   (1024, 1152, 1280, ...). Writing costs nothing.
 * - Gemini implicit: automatic, no write cost, a per-model minimum (1024 for 2.5 Flash, 4096
 *   for 2.5 Pro); no hit is guaranteed, so this is the best case.
 * - Gemini explicit: the caller creates a cache of the stable prefix (the first breakpoint):
 *   creation billed as input, reads at the cache price, storage per token-hour for its TTL.
 *
 * Not modelled: Anthropic's 20-block lookback (a request more than 20 content blocks after the
 * previous breakpoint misses), cache eviction before the TTL, OpenAI's per-machine routing.
 */
import { CostModelError } from './errors.js';
import type { CacheRequest } from './types.js';

/** How a request's prompt splits. `input - cacheRead - cacheWrite` is billed as plain input. */
export interface CacheSplit {
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Gemini explicit cache only: token-hours of storage this request started. */
  storageTokenHours: number;
  /** Anthropic only: whether writes are billed at the 1-hour rate. */
  writeIsOneHour: boolean;
}

export type PromptCachePolicy =
  | {
      provider: 'anthropic';
      /** The model's minimum cacheable prompt (1024 Sonnet/Opus 4, 4096 Haiku 4.5 / Opus 4.5). */
      minimumTokens: number;
      /** Default `'5m'`. */
      ttl?: '5m' | '1h';
    }
  | {
      provider: 'openai';
      /** Seconds a prefix stays cached while unused. Default 300 (5-10 minutes documented). */
      ttlSeconds?: number;
    }
  | {
      provider: 'google';
      mode: 'implicit';
      /** 1024 for Gemini 2.5 Flash, 4096 for 2.5 Pro (ai.google.dev/gemini-api/docs/caching). */
      minimumTokens: number;
      /** Not documented ("a short amount of time"); default 300. */
      ttlSeconds?: number;
    }
  | {
      provider: 'google';
      mode: 'explicit';
      minimumTokens: number;
      /** The cache's TTL, billed as storage for each cache created. Default 3600 (the API's). */
      ttlSeconds?: number;
    }
  | { provider: 'none' };

interface Entry {
  length: number;
  /** Seconds since the session's first request, of the entry's last write or hit. */
  lastUsed: number;
}

/** The split of each request in order, the cache carried from one request to the next. */
export function simulatePromptCache(options: {
  policy: PromptCachePolicy;
  requests: readonly CacheRequest[];
}): CacheSplit[] {
  const { policy, requests } = options;
  requests.forEach(checkRequest);
  switch (policy.provider) {
    case 'anthropic':
      return simulateBreakpoints(policy, requests);
    case 'openai':
      return simulatePrefix(requests, {
        ttlSeconds: policy.ttlSeconds ?? 300,
        cached: (matched, input) => (input < 1024 || matched < 1024 ? 0 : openAiCached(matched)),
      });
    case 'google':
      if (policy.mode === 'explicit') return simulateExplicit(policy, requests);
      return simulatePrefix(requests, {
        ttlSeconds: policy.ttlSeconds ?? 300,
        cached: (matched) => (matched < policy.minimumTokens ? 0 : matched),
      });
    case 'none':
      return requests.map(() => emptySplit());
  }
}

/** OpenAI: 1024 tokens, then whole 128-token increments of the matched prefix. */
export function openAiCached(matchedTokens: number): number {
  if (matchedTokens < 1024) return 0;
  return 1024 + Math.floor((matchedTokens - 1024) / 128) * 128;
}

function emptySplit(): CacheSplit {
  return { cacheReadTokens: 0, cacheWriteTokens: 0, storageTokenHours: 0, writeIsOneHour: false };
}

/** Seconds since the first request, per request. */
function clock(requests: readonly CacheRequest[]): number[] {
  let now = 0;
  return requests.map((request, index) => {
    if (index > 0) now += request.secondsSincePrevious ?? 0;
    return now;
  });
}

function simulateBreakpoints(
  policy: Extract<PromptCachePolicy, { provider: 'anthropic' }>,
  requests: readonly CacheRequest[],
): CacheSplit[] {
  const ttl = policy.ttl === '1h' ? 3600 : 300;
  const times = clock(requests);
  let entries: Entry[] = [];
  return requests.map((request, index) => {
    const now = times[index] ?? 0;
    // A hit needs an entry still alive whose whole prefix this request repeats.
    const alive = entries.filter(
      (entry) => now - entry.lastUsed <= ttl && entry.length <= request.sharedPrefixTokens,
    );
    const read = Math.max(0, ...alive.map((entry) => entry.length));
    const cacheable = (request.breakpoints ?? [])
      .filter((point) => point >= policy.minimumTokens && point <= request.inputTokens)
      .slice(-4);
    const last = Math.max(0, ...cacheable);
    const write = last > read ? last - read : 0;
    const refreshed = [...alive, ...cacheable.map((length) => ({ length, lastUsed: now }))];
    entries = refreshed.map((entry) => ({ length: entry.length, lastUsed: now }));
    return {
      cacheReadTokens: read,
      cacheWriteTokens: write,
      storageTokenHours: 0,
      writeIsOneHour: policy.ttl === '1h',
    };
  });
}

/** Automatic prefix caching: each request's whole prompt is cached for the next one. */
function simulatePrefix(
  requests: readonly CacheRequest[],
  rule: { ttlSeconds: number; cached: (matched: number, input: number) => number },
): CacheSplit[] {
  const times = clock(requests);
  let previous: Entry | undefined;
  return requests.map((request, index) => {
    const now = times[index] ?? 0;
    const matched =
      previous && now - previous.lastUsed <= rule.ttlSeconds
        ? Math.min(previous.length, request.sharedPrefixTokens)
        : 0;
    previous = { length: request.inputTokens, lastUsed: now };
    return { ...emptySplit(), cacheReadTokens: rule.cached(matched, request.inputTokens) };
  });
}

/** Gemini explicit: the first breakpoint's prefix is cached on purpose while it stays the same. */
function simulateExplicit(
  policy: Extract<PromptCachePolicy, { provider: 'google'; mode: 'explicit' }>,
  requests: readonly CacheRequest[],
): CacheSplit[] {
  const ttl = policy.ttlSeconds ?? 3600;
  const times = clock(requests);
  let cache: { length: number; created: number } | undefined;
  return requests.map((request, index) => {
    const now = times[index] ?? 0;
    const prefix = request.breakpoints?.[0] ?? 0;
    const reusable =
      cache !== undefined &&
      now - cache.created <= ttl &&
      cache.length === prefix &&
      prefix <= request.sharedPrefixTokens;
    if (reusable) return { ...emptySplit(), cacheReadTokens: prefix };
    if (prefix < policy.minimumTokens || prefix > request.inputTokens) {
      cache = undefined;
      return emptySplit();
    }
    // A new cache: its tokens are billed once as input on creation, then read by this request.
    cache = { length: prefix, created: now };
    return {
      cacheReadTokens: 0,
      cacheWriteTokens: prefix,
      storageTokenHours: (prefix * ttl) / 3600,
      writeIsOneHour: false,
    };
  });
}

function checkRequest(request: CacheRequest, index: number): void {
  const counts: [string, number | undefined][] = [
    ['inputTokens', request.inputTokens],
    ['outputTokens', request.outputTokens],
    ['sharedPrefixTokens', request.sharedPrefixTokens],
    ['secondsSincePrevious', request.secondsSincePrevious],
  ];
  for (const [field, value] of counts) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new CostModelError({
        field: `requests[${index}].${field}`,
        value,
        message: 'must be a finite number >= 0',
      });
    }
  }
  if (request.sharedPrefixTokens > request.inputTokens) {
    throw new CostModelError({
      field: `requests[${index}].sharedPrefixTokens`,
      value: request.sharedPrefixTokens,
      message: `a shared prefix cannot be longer than the request (${request.inputTokens} tokens)`,
    });
  }
}
