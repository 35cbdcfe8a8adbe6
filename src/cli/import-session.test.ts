import { describe, expect, it } from 'vitest';
import { toAdkSessionJson } from '../events/adk-json.js';
import type { Event, NewEvent } from '../events/types.js';
import { importAdk } from '../importers/adk.js';
import { heldImport } from '../importers/import-file.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import type { SessionService } from '../sessions/session-service.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../testing/event-builders.js';
import { storeStreamed } from './import-session.js';

/** `memory` as a user's own store: no importSession, and append number `failAt` fails. */
function ownStore(memory: InMemorySessionService, failAt?: number): SessionService {
  let appends = 0;
  return {
    createSession: (options) => memory.createSession(options),
    getSession: (options) => memory.getSession(options),
    loadView: (options) => memory.loadView(options),
    listEvents: (options) => memory.listEvents(options),
    appendEvent: (options) => {
      appends++;
      if (appends === failAt) return Promise.reject(new Error('disk full'));
      return memory.appendEvent(options);
    },
    appendCompaction: (options) => memory.appendCompaction(options),
    listSessions: (options) => memory.listSessions(options),
    deleteSession: (options) => memory.deleteSession(options),
  };
}

describe('storeStreamed, event by event', () => {
  it('stores an imported compaction over the same events (positions become stored seqs)', async () => {
    const events: Array<NewEvent & { seq: number }> = [
      { ...userTextEvent({ text: 'old question', timestamp: 1 }), seq: 3 },
      { ...modelTextEvent({ text: 'old answer', timestamp: 2 }), seq: 4 },
      { ...compactionEvent({ startSeq: 3, endSeq: 4, timestamp: 3 }), seq: 6 },
      { ...userTextEvent({ text: 'new question', timestamp: 4 }), seq: 7 },
    ];
    const result = importAdk(toAdkSessionJson({ session: {}, events }));
    const memory = new InMemorySessionService();
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    await storeStreamed({
      service: ownStore(memory),
      key,
      imported: heldImport(result),
      file: 'x.json',
    });
    const view = await memory.loadView(key);
    expect(view.checkpoint?.actions.compaction).toMatchObject({ startSeq: 1, endSeq: 2 });
    expect(view.tail.map((event: Event) => event.content?.parts[0]?.text)).toEqual([
      'new question',
    ]);
  });
});

describe('storeStreamed', () => {
  it('without importSession: appends, and deletes the session when an append fails', async () => {
    const memory = new InMemorySessionService();
    // A user's own store: no importSession, and its third append fails.
    const service = ownStore(memory, 3);
    const result = importAdk(
      toAdkSessionJson({
        session: {},
        events: [1, 2, 3, 4].map((index) => userTextEvent({ text: `m${index}`, timestamp: index })),
      }),
    );
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    await expect(
      storeStreamed({ service, key, imported: heldImport(result), file: 'x.json' }),
    ).rejects.toThrow('disk full');
    expect(await memory.listSessions({ appName: 'a', userId: 'u' })).toEqual([]);
  });

  it('with importSession: stores the events and the import state in one call', async () => {
    const service = new InMemorySessionService();
    const result = importAdk(
      toAdkSessionJson({
        session: {},
        events: [1, 2].map((index) => userTextEvent({ text: `m${index}`, timestamp: index })),
      }),
    );
    const key = { appName: 'a', userId: 'u', sessionId: 's' };
    const progress: Array<[number, number]> = [];
    await storeStreamed({
      service,
      key,
      imported: heldImport(result),
      file: 'x.json',
      onProgress: (written, total) => progress.push([written, total]),
    });
    const session = await service.getSession({ ...key, events: 'full' });
    expect(session?.events.map((event) => event.content?.parts[0]?.text)).toEqual(['m1', 'm2']);
    expect(session?.state['orrery:import']).toEqual({ file: 'x.json', format: 'adk', repairs: 0 });
    expect(progress).toEqual([[2, 2]]);
  });
});
