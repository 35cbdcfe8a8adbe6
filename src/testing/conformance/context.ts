import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import type { Event, NewEvent, SessionKey } from '../../events/types.js';
import type { SessionService } from '../../sessions/session-service.js';
import {
  compactionEvent,
  type EventFields,
  functionCallEvent,
  userTextEvent,
} from '../event-builders.js';
import type { SessionServiceConformanceOptions } from './options.js';

/**
 * What every section of the suite works with. `service` and `appName` are fresh for each test
 * (set in `beforeEach`), so read them inside a test body, never when a `describe` is registered.
 */
export interface ConformanceContext {
  readonly service: SessionService;
  readonly appName: string;
  readonly userId: string;
  /** Creates a session in this test's app for `userId`, and gives its key. */
  newSession(sessionId?: string): Promise<SessionKey>;
  /** Appends `count` plain messages one after another; gives the stored events. */
  appendMany(key: SessionKey, count: number): Promise<Event[]>;
  /** The full stored history of a session (empty when it does not exist). */
  listAll(key: SessionKey): Promise<Event[]>;
}

/**
 * Registers the per-test `beforeEach`/`afterEach` (call it inside the suite's `describe`) and
 * gives the context whose getters read the current test's service and app name.
 */
export function createConformanceContext(
  options: SessionServiceConformanceOptions,
): ConformanceContext {
  let service: SessionService;
  let appName: string;
  const userId = 'user-1';

  beforeEach(async () => {
    service = await options.createService();
    appName = `conformance-${randomUUID()}`;
  });

  afterEach(async () => {
    await service.close?.();
    await options.cleanup?.(service);
  });

  async function newSession(sessionId?: string): Promise<SessionKey> {
    const session = await service.createSession({ appName, userId, sessionId });
    return { appName, userId, sessionId: session.sessionId };
  }

  async function appendMany(key: SessionKey, count: number): Promise<Event[]> {
    const stored: Event[] = [];
    for (let index = 0; index < count; index++) {
      stored.push(await service.appendEvent({ ...key, event: make.message(`m${index}`) }));
    }
    return stored;
  }

  async function listAll(key: SessionKey): Promise<Event[]> {
    return (await service.getSession({ ...key, events: 'full' }))?.events ?? [];
  }

  return {
    get service() {
      return service;
    },
    get appName() {
      return appName;
    },
    get userId() {
      return userId;
    },
    newSession,
    appendMany,
    listAll,
  };
}

let counter = 0;

/** Fresh ids and slowly growing timestamps, so events of one suite run never collide. */
export function fields(): EventFields {
  counter++;
  return {
    id: `event-${randomUUID()}`,
    invocationId: `invocation-${counter}`,
    timestamp: 1_700_000_000 + counter / 1000,
  };
}

/** Small event builders for the suite (plain data, no store involved). */
export const make = {
  message(text: string): NewEvent {
    return userTextEvent({ ...fields(), text });
  },
  withState(stateDelta: Record<string, unknown>): NewEvent {
    return userTextEvent({ ...fields(), text: 'state change', actions: { stateDelta } });
  },
  functionCall(id: string, name: string, args: Record<string, unknown>): NewEvent {
    return functionCallEvent({ ...fields(), calls: [{ id, name, args }] });
  },
  compaction(options: { startSeq: number; endSeq: number; text?: string }): NewEvent {
    return compactionEvent({
      ...fields(),
      ...options,
      startTimestamp: 1_700_000_000,
      endTimestamp: 1_700_000_001,
      tokensBefore: 100,
      tokensAfter: 10,
      summarizer: 'conformance',
    });
  },
};

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject, it resolved');
}
