import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { SqliteSessionService } from '../../sessions/sqlite/sqlite-session-service.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  modelTextEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { withEmbeddingSearch } from './embedding-search.js';
import { InMemoryEmbeddingIndex } from './in-memory-embedding-index.js';
import {
  embeddedTexts,
  type SynonymEmbeddingModel,
  synonymEmbeddingModel,
  synonymSimilarity,
} from './test-helpers/synonym-embedding-model.js';

const folder = mkdtempSync(join(tmpdir(), 'orrery-embedding-search-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const key = { appName: 'a', userId: 'u', sessionId: 's' };
const fact = 'The staging gateway listens on port 8443, agreed with Priya.';
/** Shares no word with `fact` (the lexical search misses it), only synonyms. */
const paraphrase = 'which socket does the preprod proxy bind to';
const identifierEvent =
  'The deploy failed with ERR_7731 in the payment worker yesterday night after a long retry loop.';
/** Closer to the query `ERR_7731` than `identifierEvent` under the fake model, without the id. */
const nearIdentifier = 'An error happened: a failure, a fault.';

function history(): NewEvent[] {
  return [
    userTextEvent({ text: fact }),
    modelTextEvent({ text: 'Noted, I will remember that.' }),
    userTextEvent({ text: identifierEvent }),
    modelTextEvent({ text: nearIdentifier }),
    functionCallEvent({ calls: [{ id: 'c1', name: 'read_config', args: { path: 'db.yaml' } }] }),
    functionResponseEvent({
      responses: [{ id: 'c1', name: 'read_config', response: { text: 'retries: 3' } }],
    }),
  ];
}

function filler(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, index) =>
    userTextEvent({ text: `filler note number ${index} about lunch` }),
  );
}

async function append(store: SessionService, sessionKey: typeof key, events: NewEvent[]) {
  for (const event of events) await store.appendEvent({ ...sessionKey, event });
}

let databases = 0;
const stores: Array<[string, () => SessionService]> = [
  ['in memory', () => new InMemorySessionService()],
  ['SQLite', () => new SqliteSessionService({ path: join(folder, `store-${++databases}.db`) })],
];

describe.each(stores)('hybrid search over the %s store', (_name, openStore) => {
  async function setup(events: NewEvent[] = history(), options: { perSearch?: number } = {}) {
    const store = openStore();
    await store.createSession(key);
    await append(store, key, events);
    const model = synonymEmbeddingModel();
    const service = withEmbeddingSearch({
      sessionService: store,
      embeddingModel: model,
      maxEventsToIndexPerSearch: options.perSearch,
      logger: false,
    });
    return { store, model, service };
  }

  it('finds a paraphrase that shares no word with the event', async () => {
    const { store, service } = await setup();
    expect(await store.searchEvents?.({ ...key, query: paraphrase })).toEqual([]);
    const hits = await service.searchEvents?.({ ...key, query: paraphrase });
    expect(hits?.[0]).toMatchObject({ seq: 1, sessionId: 's', author: 'user' });
    expect(hits?.[0]?.event.content?.parts[0]?.text).toBe(fact);
    await store.close?.();
  });

  it('keeps vector hits to after, before and authors, as the lexical ones', async () => {
    const { store, service } = await setup();
    const [fact] = (await store.listEvents({ ...key, limit: 1 })).events;
    if (!fact) throw new Error('no event');
    const seqs = async (filters: { after?: number; before?: number; authors?: string[] }) =>
      ((await service.searchEvents?.({ ...key, query: paraphrase, ...filters })) ?? []).map(
        (hit) => hit.seq,
      );
    // Found by its vector alone (no shared word), then left out by each filter.
    expect(await seqs({})).toContain(1);
    expect(await seqs({ authors: ['user'] })).toContain(1);
    expect(await seqs({ authors: ['agent'] })).not.toContain(1);
    expect(await seqs({ after: fact.timestamp })).not.toContain(1);
    expect(await seqs({ before: fact.timestamp })).not.toContain(1);
    expect(await seqs({ before: fact.timestamp + 1 })).toContain(1);
    const byModel =
      (await service.searchEvents?.({ ...key, query: paraphrase, authors: ['agent'] })) ?? [];
    expect(byModel.every((hit) => hit.author === 'agent')).toBe(true);
    await store.close?.();
  });

  it('still ranks an exact identifier first', async () => {
    const { store, service } = await setup();
    // The vectors alone prefer the event without the identifier.
    expect(synonymSimilarity('ERR_7731', nearIdentifier)).toBeGreaterThan(
      synonymSimilarity('ERR_7731', identifierEvent),
    );
    const hits = (await service.searchEvents?.({ ...key, query: 'ERR_7731' })) ?? [];
    expect(hits.map((hit) => hit.seq).slice(0, 2)).toEqual([3, 4]);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
    await store.close?.();
  });

  it('embeds each event once, and only events appended since the last search', async () => {
    const { store, model, service } = await setup();
    await service.searchEvents?.({ ...key, query: paraphrase });
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(6);
    await append(store, key, [userTextEvent({ text: 'the db password was rotated' })]);
    const hits = await service.searchEvents?.({ ...key, query: 'credential changed' });
    expect(hits?.[0]?.seq).toBe(7);
    await service.searchEvents?.({ ...key, query: paraphrase });
    const texts = embeddedTexts(model, [paraphrase, 'credential changed']);
    expect(texts).toHaveLength(7);
    expect(new Set(texts).size).toBe(7);
    // The tool call is embedded by its name and arguments, as the stores index it.
    expect(texts).toContain('read_config db.yaml');
    await store.close?.();
  });

  it('embeds each event once when two searches run at the same time', async () => {
    const { store, model, service } = await setup();
    const [first, second] = await Promise.all([
      service.searchEvents?.({ ...key, query: paraphrase }),
      service.searchEvents?.({ ...key, query: 'credential changed' }),
    ]);
    expect(first?.[0]?.seq).toBe(1);
    expect(second).toBeDefined();
    expect(embeddedTexts(model, [paraphrase, 'credential changed'])).toHaveLength(6);
    await store.close?.();
  });

  it('reads at most maxEventsToIndexPerSearch events a search; later searches go on', async () => {
    const { store, model, service } = await setup([...filler(9), userTextEvent({ text: fact })], {
      perSearch: 4,
    });
    const found = async () =>
      ((await service.searchEvents?.({ ...key, query: paraphrase })) ?? []).some(
        (hit) => hit.seq === 10,
      );
    expect(await found()).toBe(false);
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(4);
    expect(await found()).toBe(false);
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(8);
    expect(await found()).toBe(true);
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(10);
    await store.close?.();
  });

  it("never returns another user's events, even when their vectors are closer", async () => {
    const { store, service } = await setup(filler(3));
    const other = { ...key, userId: 'other' };
    await store.createSession(other);
    await append(store, other, [userTextEvent({ text: paraphrase })]);
    await store.createSession({ ...other, sessionId: 'elsewhere' });
    await append(store, { ...other, sessionId: 'elsewhere' }, [
      userTextEvent({ text: paraphrase }),
    ]);
    for (const scope of [key, { appName: 'a', userId: 'u' }]) {
      const hits = (await service.searchEvents?.({ ...scope, query: paraphrase })) ?? [];
      for (const hit of hits) expect(hit.event.content?.parts[0]?.text).not.toBe(paraphrase);
    }
    const theirs = await service.searchEvents?.({
      ...other,
      query: paraphrase,
      sessionId: undefined,
    });
    expect(theirs?.map((hit) => hit.sessionId).sort()).toEqual(['elsewhere', 's']);
    await store.close?.();
  });

  it('honours beforeSeq and afterSeq, and indexes nothing past beforeSeq', async () => {
    const { store, model, service } = await setup([...filler(2), userTextEvent({ text: fact })]);
    const seqs = async (bounds: { beforeSeq?: number; afterSeq?: number }) =>
      ((await service.searchEvents?.({ ...key, query: paraphrase, ...bounds })) ?? []).map(
        (hit) => hit.seq,
      );
    expect(await seqs({ beforeSeq: 3 })).not.toContain(3);
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(2);
    expect(await seqs({ afterSeq: 3 })).toEqual([]);
    expect(await seqs({ afterSeq: 2, beforeSeq: 4 })).toEqual([3]);
    await store.close?.();
  });

  it('never returns a compaction event, nor embeds one', async () => {
    const { store, model, service } = await setup(filler(2));
    await store.appendCompaction({
      ...key,
      event: compactionEvent({ startSeq: 1, endSeq: 2, text: paraphrase }),
      expectedCheckpointSeq: null,
    });
    const hits = (await service.searchEvents?.({ ...key, query: paraphrase })) ?? [];
    expect(hits.map((hit) => hit.seq)).not.toContain(3);
    expect(embeddedTexts(model, [paraphrase])).toHaveLength(2);
    await store.close?.();
  });
});

describe('when embedding fails', () => {
  const apiKey = 'sk-proj-abcdefghijklmnopqrstuvwxyz123456';

  async function setup(model: SynonymEmbeddingModel) {
    const store = new InMemorySessionService();
    await store.createSession(key);
    await append(store, key, history());
    const errors: unknown[] = [];
    const lines: string[] = [];
    const { pino } = await import('pino');
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const service = withEmbeddingSearch({
      sessionService: store,
      embeddingModel: model,
      onEmbeddingError: (error) => errors.push(error),
      logger,
      embeddingTimeoutMs: 60_000,
    });
    return { store, service, errors, lines };
  }

  it('returns the lexical hits and reports the error with the key masked', async () => {
    const model = synonymEmbeddingModel();
    const { store, service, errors, lines } = await setup(model);
    model.failWith(async () => {
      throw new Error(`401 Incorrect API key provided: ${apiKey}`);
    });
    const query = { ...key, query: 'ERR_7731 payment' };
    expect(await service.searchEvents?.(query)).toEqual(await store.searchEvents(query));
    expect(await service.searchEvents?.({ ...key, query: paraphrase })).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({
      name: 'EmbeddingError',
      reason: 'provider_error',
      provider: 'test.embedding',
      modelId: 'synonyms',
    });
    expect(JSON.stringify(errors)).not.toContain(apiKey);
    expect(String((errors[0] as Error).message)).not.toContain(apiKey);
    expect(lines.join('\n')).toContain('lexical hits only');
    expect(lines.join('\n')).not.toContain(apiKey);
    // Recovered: the next search embeds again.
    model.failWith(undefined);
    expect((await service.searchEvents?.({ ...key, query: paraphrase }))?.[0]?.seq).toBe(1);
  });

  it('keeps what was indexed before a failure and embeds it only once', async () => {
    const model = synonymEmbeddingModel({ maxEmbeddingsPerCall: 2 });
    const { service, errors } = await setup(model);
    let calls = 0;
    model.failWith(async (values) => {
      calls++;
      // The query and the first page pass; the second page fails.
      if (calls <= 2) {
        const { synonymVector } = await import('./test-helpers/synonym-embedding-model.js');
        return { embeddings: values.map(synonymVector), warnings: [] } as never;
      }
      throw new Error('503 overloaded');
    });
    await service.searchEvents?.({ ...key, query: paraphrase });
    expect(errors).toHaveLength(1);
    model.failWith(undefined);
    const hits = await service.searchEvents?.({ ...key, query: paraphrase });
    expect(hits?.[0]?.seq).toBe(1);
    const texts = embeddedTexts(model, [paraphrase]);
    expect(new Set(texts).size).toBe(6);
    expect(texts).toHaveLength(6 + 2); // the failed page's two texts were sent twice
  });

  it('returns the lexical hits when the caller aborts, even if the provider ignores it', async () => {
    const model = synonymEmbeddingModel();
    const { store, service, errors } = await setup(model);
    const controller = new AbortController();
    model.failWith(() => {
      controller.abort();
      return new Promise<never>(() => {});
    });
    const query = { ...key, query: 'ERR_7731' };
    const hits = await service.searchEvents?.({ ...query, signal: controller.signal });
    expect(hits).toEqual(await store.searchEvents(query));
    expect(errors[0]).toMatchObject({ reason: 'aborted' });
  });

  it('gives up after embeddingTimeoutMs', async () => {
    const { vi } = await import('vitest');
    vi.useFakeTimers();
    try {
      const model = synonymEmbeddingModel();
      const { store, service, errors } = await setup(model);
      let called = () => {};
      const calledOnce = new Promise<void>((resolve) => {
        called = resolve;
      });
      model.failWith(() => {
        called();
        return new Promise<never>(() => {});
      });
      const query = { ...key, query: 'ERR_7731' };
      const pending = service.searchEvents?.(query);
      await calledOnce;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(await pending).toEqual(await store.searchEvents(query));
      expect(errors[0]).toMatchObject({ reason: 'timeout' });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('withEmbeddingSearch', () => {
  it('passes every other method through, optional capabilities only when the store has them', async () => {
    const store = new InMemorySessionService();
    const service = withEmbeddingSearch({
      sessionService: store,
      embeddingModel: synonymEmbeddingModel(),
      logger: false,
    });
    expect(typeof service.acquireLease).toBe('function');
    expect(typeof service.importSession).toBe('function');
    expect(typeof service.listAllSessions).toBe('function');
    await service.createSession(key);
    await service.appendEvent({ ...key, event: userTextEvent({ text: fact }) });
    expect((await store.listEvents(key)).events).toHaveLength(1);
    const lease = await service.acquireLease?.(key);
    await lease?.release();

    const minimal: SessionService = {
      createSession: (options) => store.createSession(options),
      getSession: (options) => store.getSession(options),
      loadView: (options) => store.loadView(options),
      listEvents: (options) => store.listEvents(options),
      appendEvent: (options) => store.appendEvent(options),
      appendCompaction: (options) => store.appendCompaction(options),
      listSessions: (options) => store.listSessions(options),
      deleteSession: (options) => store.deleteSession(options),
    };
    const decorated = withEmbeddingSearch({
      sessionService: minimal,
      embeddingModel: synonymEmbeddingModel(),
      logger: false,
    });
    expect(decorated.acquireLease).toBeUndefined();
    expect(decorated.importSession).toBeUndefined();
    // A store that cannot search by words still searches by meaning.
    expect((await decorated.searchEvents?.({ ...key, query: paraphrase }))?.[0]?.seq).toBe(1);
    await expect(
      decorated.searchEvents?.({ ...key, sessionId: 'missing', query: paraphrase }),
    ).rejects.toMatchObject({ name: 'SessionNotFoundError' });
  });

  it('forgets a deleted session, and a session recreated behind its back', async () => {
    const store = new InMemorySessionService();
    const index = new InMemoryEmbeddingIndex();
    const service = withEmbeddingSearch({
      sessionService: store,
      embeddingModel: synonymEmbeddingModel(),
      index,
      logger: false,
    });
    await store.createSession(key);
    await append(store, key, history());
    await service.searchEvents?.({ ...key, query: paraphrase });
    expect(index.size).toBe(6);
    await service.deleteSession(key);
    expect(index.size).toBe(0);

    await store.createSession(key);
    await append(store, key, history());
    await service.searchEvents?.({ ...key, query: paraphrase });
    // Deleted and recreated in the store directly: the old vectors no longer fit the events.
    await store.deleteSession(key);
    await store.createSession(key);
    await append(store, key, filler(6));
    const hits = (await service.searchEvents?.({ ...key, query: paraphrase })) ?? [];
    expect(hits.map((hit) => hit.event.content?.parts[0]?.text)).not.toContain(fact);
    expect(await index.indexedThrough(key)).toBe(0);
  });

  it('names a bad option', () => {
    const create = (options: Record<string, number>) =>
      withEmbeddingSearch({
        sessionService: new InMemorySessionService(),
        embeddingModel: synonymEmbeddingModel(),
        logger: false,
        ...options,
      });
    expect(() => create({ maxEmbeddingsPerCall: 0 })).toThrow(/maxEmbeddingsPerCall/);
    expect(() => create({ maxEventsToIndexPerSearch: 1.5 })).toThrow(/maxEventsToIndexPerSearch/);
    expect(() => create({ minSimilarity: 1 })).toThrow(/minSimilarity/);
  });
});
