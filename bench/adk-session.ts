/**
 * Drives Google's ADK for TypeScript (`@google/adk`, a devDependency) through the same turn
 * workload as orrery's benches: sessions of realistic events (`turnEvent`), a Runner with an
 * `LlmAgent` on a stub model that answers at once, in memory and on SQLite
 * (`DatabaseSessionService('sqlite://...')`, MikroORM with `@mikro-orm/sqlite`).
 *
 * Seeding goes around ADK's append path on purpose: its in-memory `appendEvent` scans the whole
 * session for a duplicate id and its database one runs a locked transaction, so 100k appends
 * would take most of an hour. The stored result is the same: the in-memory session's event list,
 * and rows written by ADK's own MikroORM entities (so `event_data` is ADK's snake_case JSON).
 */
import {
  type Event as AdkEvent,
  BaseLlm,
  createEvent,
  DatabaseSessionService,
  InMemorySessionService,
  LlmAgent,
  type LlmResponse,
  LogLevel,
  Runner,
  setLogLevel,
} from '@google/adk';
import { median, turnEvent } from './workload.js';

export const adkKey = { appName: 'bench', userId: 'user' };
const baseMillis = 1_700_000_000_000;

/** A model that answers at once: the bench times ADK, not a provider. */
export class StubModel extends BaseLlm {
  constructor() {
    super({ model: 'stub' });
  }

  async *generateContentAsync(): AsyncGenerator<LlmResponse, void> {
    yield {
      content: { role: 'model', parts: [{ text: 'ok' }] },
      usageMetadata: { promptTokenCount: 9_000, candidatesTokenCount: 1, totalTokenCount: 9_001 },
    };
  }

  connect(): never {
    throw new Error('the stub model has no live connection');
  }
}

/** The nth event of the shared workload, as ADK stores it (millisecond timestamps). */
export function adkEvent(index: number): AdkEvent {
  const event = turnEvent(index);
  return createEvent({
    id: event.id,
    invocationId: event.invocationId,
    author: event.author,
    content: event.content as AdkEvent['content'],
    usageMetadata: event.usageMetadata as AdkEvent['usageMetadata'],
    timestamp: baseMillis + index,
  });
}

interface InMemoryInternals {
  sessions: Record<string, Record<string, Record<string, { events: AdkEvent[] }>>>;
}

export async function seedAdkMemory(count: number): Promise<{
  service: InMemorySessionService;
  sessionId: string;
}> {
  setLogLevel(LogLevel.ERROR);
  const service = new InMemorySessionService();
  const sessionId = `session-${count}`;
  await service.createSession({ ...adkKey, sessionId });
  // The session ADK keeps: what `appendEvent` would push one event at a time.
  const stored = (service as unknown as InMemoryInternals).sessions[adkKey.appName]?.[
    adkKey.userId
  ]?.[sessionId];
  if (!stored) throw new Error('ADK in-memory session layout changed: no stored session');
  for (let index = 0; index < count; index++) stored.events.push(adkEvent(index));
  return { service, sessionId };
}

interface OrmInternals {
  orm: {
    em: {
      fork(): {
        create(entity: unknown, data: Record<string, unknown>): unknown;
        persist(entity: unknown): unknown;
        flush(): Promise<void>;
        clear(): void;
      };
    };
    getMetadata(): { find(name: string): { class: unknown } | undefined };
  };
}

export async function seedAdkSqlite(
  path: string,
  count: number,
): Promise<{ service: DatabaseSessionService; sessionId: string }> {
  setLogLevel(LogLevel.ERROR);
  const service = new DatabaseSessionService(`sqlite://${path}`);
  const sessionId = `session-${count}`;
  await service.createSession({ ...adkKey, sessionId });
  const { orm } = service as unknown as OrmInternals;
  const storageEvent = orm.getMetadata().find('StorageEvent')?.class;
  if (!storageEvent) throw new Error('ADK database layout changed: no StorageEvent entity');
  const batch = 2_000;
  for (let start = 0; start < count; start += batch) {
    const em = orm.em.fork();
    for (let index = start; index < Math.min(count, start + batch); index++) {
      const event = adkEvent(index);
      em.persist(
        em.create(storageEvent, {
          id: event.id,
          ...adkKey,
          sessionId,
          invocationId: event.invocationId,
          timestamp: new Date(event.timestamp),
          eventData: event,
        }),
      );
    }
    await em.flush();
    em.clear();
  }
  return { service, sessionId };
}

/** Median ms of `turns` whole ADK Runner turns (getSession, append, request, stub model, append). */
export async function adkTurnTimes(options: {
  service: InMemorySessionService | DatabaseSessionService;
  sessionId: string;
  turns: number;
}): Promise<number> {
  const runner = new Runner({
    appName: adkKey.appName,
    agent: new LlmAgent({ name: 'agent', model: new StubModel() }),
    sessionService: options.service,
  });
  const samples: number[] = [];
  for (let turn = 0; turn < options.turns; turn++) {
    const start = performance.now();
    for await (const _event of runner.runAsync({
      userId: adkKey.userId,
      sessionId: options.sessionId,
      newMessage: { role: 'user', parts: [{ text: 'next' }] },
    })) {
      // drain: the turn ends when the iterable does
    }
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Median ms of a full `getSession` (what ADK's Runner does first on every turn). */
export async function adkGetSessionTimes(options: {
  service: InMemorySessionService | DatabaseSessionService;
  sessionId: string;
  runs: number;
}): Promise<number> {
  const samples: number[] = [];
  let events = 0;
  for (let run = 0; run < options.runs; run++) {
    const start = performance.now();
    const session = await options.service.getSession({ ...adkKey, sessionId: options.sessionId });
    samples.push(performance.now() - start);
    events = session?.events.length ?? 0;
  }
  if (events === 0) throw new Error('ADK getSession returned no events');
  return median(samples);
}
