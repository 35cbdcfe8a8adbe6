/**
 * Gemini explicit caching on the wire (docs/cost.md#gemini-explicit-caching): the real AI SDK
 * Google provider and the cache's REST calls against a local fake Gemini API that records every
 * request and refuses a cache beside a system instruction or tools, as the real API does.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX } from '../compaction/view.js';
import type { Content } from '../events/types.js';
import { fromAiSdk } from './ai-sdk-model.js';
import { GeminiCacheError } from './gemini-cached-content.js';
import type { GeminiExplicitCacheOptions } from './gemini-explicit-cache.js';
import { resolveModel } from './resolve-model.js';
import { type FakeGeminiServer, startFakeGeminiServer } from './test-helpers/fake-gemini-server.js';
import { travelRequest } from './test-helpers/travel-request.js';
import type { Model, ModelRequest } from './types.js';

const API_KEY = 'test-gemini-key';
/** About 2,000 tokens: over Gemini 2.5 Flash's 1,024-token minimum. */
const LONG_INSTRUCTION = 'You are a concise travel assistant who checks the weather first. '.repeat(
  120,
);

let server: FakeGeminiServer;
beforeEach(async () => {
  server = await startFakeGeminiServer();
});
afterEach(async () => {
  await server.close();
});

interface LogLine {
  level: 'info' | 'warn';
  fields: Record<string, unknown>;
  message: string;
}

function model(options: GeminiExplicitCacheOptions & { off?: boolean } = {}): {
  model: Model;
  log: LogLine[];
} {
  const log: LogLine[] = [];
  const google = createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: server.baseURL });
  const logger = {
    info: (fields: Record<string, unknown>, message: string) =>
      log.push({ level: 'info', fields, message }),
    warn: (fields: Record<string, unknown>, message: string) =>
      log.push({ level: 'warn', fields, message }),
  };
  return {
    log,
    model: fromAiSdk(google('gemini-2.5-flash'), {
      geminiExplicitCache: options.off
        ? false
        : { apiKey: API_KEY, baseURL: server.baseURL, logger, ...options },
    }),
  };
}

/** The travel conversation, optionally after a compaction (the summary first), grown by `turn`. */
function request(options: { summary?: string; turn: number; cacheKey?: string }): ModelRequest {
  const base = travelRequest();
  const contents: Content[] = [...base.contents];
  for (let turn = 0; turn < options.turn; turn++) {
    contents.push({ role: 'model', parts: [{ text: `answer ${turn}` }] });
    contents.push({ role: 'user', parts: [{ text: `question ${turn + 1}` }] });
  }
  if (options.summary !== undefined) {
    contents.unshift({ role: 'user', parts: [{ text: `${SUMMARY_PREFIX}${options.summary}` }] });
  }
  return {
    ...base,
    systemInstruction: LONG_INSTRUCTION,
    contents,
    cacheKey: options.cacheKey ?? 'session-1',
  };
}

const creations = () => server.to('POST', '/cachedContents');
const deletions = () => server.to('DELETE', '');
const generations = () => server.to('POST', ':generateContent');

describe('Gemini explicit cache', () => {
  it('is created once for a stable prefix and reused across turns; requests omit the prefix', async () => {
    const { model: gemini, log } = model();
    // First request: one read expected so far, a cache would not pay.
    await gemini.generate(request({ turn: 0 }));
    expect(creations()).toHaveLength(0);
    for (let turn = 1; turn <= 4; turn++) await gemini.generate(request({ turn }));
    expect(creations()).toHaveLength(1);
    const body = creations()[0]?.body ?? {};
    expect(creations()[0]?.apiKey).toBe(API_KEY);
    expect(body.model).toBe('models/gemini-2.5-flash');
    expect(body.ttl).toBe('300s');
    expect(body.systemInstruction).toEqual({ parts: [{ text: LONG_INSTRUCTION }] });
    const tools = body.tools as { functionDeclarations: { name: string }[] }[];
    expect(tools[0]?.functionDeclarations.map((tool) => tool.name)).toEqual([
      'get_weather',
      'book_table',
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(body.contents).toBeUndefined(); // no summary yet

    const sent = generations().map((recorded) => recorded.body ?? {});
    expect(sent).toHaveLength(5);
    expect(sent[0]?.cachedContent).toBeUndefined();
    expect(sent[0]?.systemInstruction).toBeDefined();
    for (const later of sent.slice(1)) {
      expect(later.cachedContent).toBe('cachedContents/fake-1');
      // Sent once, in the cache: the API refuses them beside `cachedContent`.
      expect(later.systemInstruction).toBeUndefined();
      expect(later.tools).toBeUndefined();
      expect(later.toolConfig).toBeUndefined();
    }
    expect(log.filter((line) => line.message.includes('created'))).toHaveLength(1);
  });

  it('reports the cached tokens the API read', async () => {
    const { model: gemini } = model();
    await gemini.generate(request({ turn: 0 }));
    const response = await gemini.generate(request({ turn: 1 }));
    expect(response.usageMetadata?.cachedContentTokenCount).toBeGreaterThan(1000);
  });

  it('is recreated after a compaction changes the prefix, and the old one deleted', async () => {
    const { model: gemini } = model();
    for (let turn = 0; turn < 4; turn++) await gemini.generate(request({ turn }));
    expect(creations()).toHaveLength(1);
    // A compaction: the summary opens the view. The previous prefix served 4 requests, so the
    // new one is cached from its first request.
    await gemini.generate(request({ summary: 'Paris, table booked.', turn: 0 }));
    expect(creations()).toHaveLength(2);
    expect(deletions().map((recorded) => recorded.path)).toEqual(['/v1beta/cachedContents/fake-1']);
    expect(server.alive).toEqual(new Set(['cachedContents/fake-2']));
    const created = creations()[1]?.body ?? {};
    expect(created.contents).toEqual([
      { role: 'user', parts: [{ text: `${SUMMARY_PREFIX}Paris, table booked.` }] },
    ]);
    const last = generations().at(-1)?.body ?? {};
    expect(last.cachedContent).toBe('cachedContents/fake-2');
    // The summary is in the cache, not in the request.
    const firstText = (last.contents as { parts: { text?: string }[] }[])[0]?.parts[0]?.text;
    expect(firstText?.startsWith(SUMMARY_PREFIX)).toBe(false);
    // The same summary again: reused.
    await gemini.generate(request({ summary: 'Paris, table booked.', turn: 1 }));
    expect(creations()).toHaveLength(2);
  });

  it('is not created when it would not pay: an hour of storage for a few reads', async () => {
    const { model: gemini, log } = model({ ttlSeconds: 3600 });
    // Flash: input $0.30, cache read $0.03, storage $1.00 per MTok-hour. N reads pay when
    // 0.30 N > 0.30 + 0.03 N + 1.00, i.e. from the 5th.
    for (let turn = 0; turn < 4; turn++) await gemini.generate(request({ turn }));
    expect(creations()).toHaveLength(0);
    const skipped = log.filter((line) => line.message.includes('would not pay'));
    expect(skipped.at(-1)?.fields.reason).toBe('too_few_reads');
    await gemini.generate(request({ turn: 4 }));
    expect(creations()).toHaveLength(1);
  });

  it('is not created for a prefix under the model minimum', async () => {
    const { model: gemini, log } = model();
    for (let turn = 0; turn < 4; turn++) {
      await gemini.generate({ ...request({ turn }), systemInstruction: 'Be brief.' });
    }
    expect(creations()).toHaveLength(0);
    expect(log.at(-1)?.fields.reason).toBe('below_minimum');
    expect(generations().every((recorded) => recorded.body?.cachedContent === undefined)).toBe(
      true,
    );
  });

  it('a creation failure falls back to no cache, is logged, and is not retried for that prefix', async () => {
    const { model: gemini, log } = model();
    server.failCreate = 400;
    for (let turn = 0; turn < 4; turn++) {
      const response = await gemini.generate(request({ turn }));
      expect(response.content.parts[0]?.text).toBe('ok');
    }
    expect(creations()).toHaveLength(1);
    const warning = log.find((line) => line.level === 'warn');
    expect(warning?.message).toContain('not created');
    expect(GeminiCacheError.isInstance(warning?.fields.err)).toBe(true);
    expect((warning?.fields.err as GeminiCacheError | undefined)?.statusCode).toBe(400);
    for (const recorded of generations()) {
      expect(recorded.body?.cachedContent).toBeUndefined();
      expect(recorded.body?.systemInstruction).toBeDefined();
    }
  });

  it('a cache the API no longer has: the call is sent again without it', async () => {
    const { model: gemini } = model();
    await gemini.generate(request({ turn: 0 }));
    await gemini.generate(request({ turn: 1 }));
    server.expireCaches = true;
    const response = await gemini.generate(request({ turn: 2 }));
    expect(response.content.parts[0]?.text).toBe('ok');
    const last = generations().slice(-2);
    expect(last[0]?.body?.cachedContent).toBe('cachedContents/fake-1');
    expect(last[1]?.body?.cachedContent).toBeUndefined();
    expect(last[1]?.body?.systemInstruction).toBeDefined();
  });

  it('a network failure to create falls back too', async () => {
    const log: LogLine[] = [];
    const broken = fromAiSdk(
      createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: server.baseURL })('gemini-2.5-flash'),
      {
        geminiExplicitCache: {
          apiKey: API_KEY,
          baseURL: 'http://127.0.0.1:1/v1beta',
          logger: { warn: (fields, message) => log.push({ level: 'warn', fields, message }) },
        },
      },
    );
    await broken.generate(request({ turn: 0 }));
    const response = await broken.generate(request({ turn: 1 }));
    expect(response.content.parts[0]?.text).toBe('ok');
    expect(log.some((line) => line.level === 'warn')).toBe(true);
  });

  it('streams with the cache too', async () => {
    const { model: gemini } = model();
    await gemini.generate(request({ turn: 0 }));
    await gemini.generate(request({ turn: 1 }));
    expect(creations()).toHaveLength(1);
    // The fake has no streaming route: the stream fails, but its request is recorded.
    const parts = gemini.stream?.(request({ turn: 2 }));
    await expect(
      (async () => {
        for await (const _part of parts ?? []) {
          // drain
        }
      })(),
    ).rejects.toThrow();
    const streamed = server.to('POST', ':streamGenerateContent')[0]?.body ?? {};
    expect(streamed.cachedContent).toBe('cachedContents/fake-1');
    expect(streamed.systemInstruction).toBeUndefined();
  });

  it('is off by default, off with false, and off for requests without a cache key', async () => {
    const google = createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: server.baseURL });
    const plain = fromAiSdk(google('gemini-2.5-flash'));
    const off = model({ off: true }).model;
    const on = model().model;
    for (let turn = 0; turn < 3; turn++) {
      await plain.generate(request({ turn }));
      await off.generate(request({ turn }));
      const { cacheKey: _key, ...keyless } = request({ turn });
      await on.generate(keyless);
    }
    expect(creations()).toHaveLength(0);
  });

  it('resolveModel takes it as an option, with the key and fetch it resolved', async () => {
    // Every call to the real API's host goes to the fake server.
    const fetch: typeof globalThis.fetch = (input, init) =>
      globalThis.fetch(
        String(input instanceof Request ? input.url : input).replace(
          'https://generativelanguage.googleapis.com/v1beta',
          server.baseURL,
        ),
        init,
      );
    const gemini = await resolveModel({
      modelId: 'google:gemini-2.5-flash',
      env: { GEMINI_API_KEY: API_KEY },
      fetch,
      geminiExplicitCache: { logger: { warn: () => undefined } },
    });
    for (let turn = 0; turn < 3; turn++) await gemini.generate(request({ turn }));
    expect(creations()).toHaveLength(1);
    expect(creations()[0]?.apiKey).toBe(API_KEY);
  });

  it('ORRERY_GEMINI_EXPLICIT_CACHE=on turns it on for resolveModel; a bad value is named', async () => {
    const fetch: typeof globalThis.fetch = (input, init) =>
      globalThis.fetch(
        String(input instanceof Request ? input.url : input).replace(
          'https://generativelanguage.googleapis.com/v1beta',
          server.baseURL,
        ),
        init,
      );
    const env = { GEMINI_API_KEY: API_KEY, ORRERY_GEMINI_EXPLICIT_CACHE: 'on' };
    const warnings: string[] = [];
    const originalWarn = globalThis.console.warn;
    globalThis.console.warn = (message: string) => warnings.push(message);
    try {
      const gemini = await resolveModel({ modelId: 'google:gemini-2.5-flash', env, fetch });
      for (let turn = 0; turn < 3; turn++) await gemini.generate(request({ turn }));
      // The option wins over the variable.
      const off = await resolveModel({
        modelId: 'google:gemini-2.5-flash',
        env,
        fetch,
        geminiExplicitCache: false,
      });
      for (let turn = 0; turn < 3; turn++) {
        await off.generate(request({ turn, cacheKey: 'session-2' }));
      }
    } finally {
      globalThis.console.warn = originalWarn;
    }
    expect(creations()).toHaveLength(1);
    expect(warnings).toEqual([]);
    await expect(
      resolveModel({
        modelId: 'google:gemini-2.5-flash',
        env: { GEMINI_API_KEY: API_KEY, ORRERY_GEMINI_EXPLICIT_CACHE: 'sometimes' },
      }),
    ).rejects.toThrow(/ORRERY_GEMINI_EXPLICIT_CACHE='sometimes'/);
  });

  it('an expired cache is replaced by a new one (not deleted: it is gone)', async () => {
    let now = 1_000_000;
    const { model: gemini } = model({ now: () => now });
    await gemini.generate(request({ turn: 0 }));
    await gemini.generate(request({ turn: 1 }));
    expect(creations()).toHaveLength(1);
    now += 280_000; // within the 30 s margin before its 300 s TTL: not reused
    await gemini.generate(request({ turn: 2 }));
    expect(creations()).toHaveLength(2);
    expect(deletions()).toHaveLength(0);
    expect(generations().at(-1)?.body?.cachedContent).toBe('cachedContents/fake-2');
  });

  it('a model without a price is left uncached, logged once', async () => {
    const log: LogLine[] = [];
    const google = createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: server.baseURL });
    const gemma = fromAiSdk(google('gemma-3-27b-it'), {
      geminiExplicitCache: {
        apiKey: API_KEY,
        baseURL: server.baseURL,
        logger: { warn: (fields, message) => log.push({ level: 'warn', fields, message }) },
      },
    });
    for (let turn = 0; turn < 3; turn++) await gemma.generate(request({ turn }));
    expect(creations()).toHaveLength(0);
    expect(log.map((line) => line.message)).toEqual(['gemini explicit cache off for this model']);
  });

  it('names a bad option', () => {
    const google = createGoogleGenerativeAI({ apiKey: API_KEY, baseURL: server.baseURL });
    expect(() =>
      fromAiSdk(google('gemini-2.5-flash'), {
        geminiExplicitCache: { apiKey: API_KEY, ttlSeconds: 0 },
      }),
    ).toThrow(/geminiExplicitCache\.ttlSeconds/);
  });
});
