/**
 * `importSession`'s contract, run against every store: the whole session or nothing, invisible
 * until it returns, every event checked by the append rules and named by its position.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import type { NewEvent } from '../../events/types.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../../testing/event-builders.js';
import { SessionAlreadyExistsError } from '../errors.js';
import type { SessionService } from '../session-service.js';

export interface ImportSessionCasesOptions {
  name: string;
  createService: () => Promise<SessionService>;
}

const appName = 'app';
const userId = 'alice';

function texts(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? userTextEvent({ text: `q${index + 1}`, timestamp: index + 1 })
      : modelTextEvent({ text: `a${index + 1}`, timestamp: index + 1 }),
  );
}

/** An async stream that stops after `pauseAfter` events until `resume()`; `paused` resolves then. */
function pausingStream(events: NewEvent[], pauseAfter: number) {
  let markPaused!: () => void;
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => {
    markPaused = resolve;
  });
  const resumed = new Promise<void>((resolve) => {
    resume = resolve;
  });
  async function* stream(): AsyncGenerator<NewEvent> {
    for (const [index, event] of events.entries()) {
      if (index === pauseAfter) {
        markPaused();
        await resumed;
      }
      yield event;
    }
  }
  return { stream: stream(), paused, resume };
}

export function describeImportSessionCases(options: ImportSessionCasesOptions): void {
  describe(`${options.name}.importSession`, () => {
    const services: SessionService[] = [];
    afterEach(async () => {
      for (const service of services.splice(0)) await service.close?.();
    });
    async function create(): Promise<
      SessionService & Required<Pick<SessionService, 'importSession'>>
    > {
      const service = await options.createService();
      services.push(service);
      if (!service.importSession) throw new Error(`${options.name} has no importSession`);
      return service as SessionService & Required<Pick<SessionService, 'importSession'>>;
    }

    it('stores every event in order from seq 1, with the state and deltas applied', async () => {
      const service = await create();
      const events = texts(1203);
      events[5] = {
        ...(events[5] as NewEvent),
        actions: {
          stateDelta: { mood: 'ok', 'temp:x': 1, 'app:theme': 'dark', 'user:lang': 'fr' },
        },
      };
      const result = await service.importSession({
        appName,
        userId,
        sessionId: 's1',
        state: { plan: 'a', 'temp:scratch': true },
        events,
      });
      expect(result.eventCount).toBe(1203);
      expect(result.session).toMatchObject({ appName, userId, sessionId: 's1', events: [] });
      expect(result.session.state).toEqual({
        plan: 'a',
        mood: 'ok',
        'app:theme': 'dark',
        'user:lang': 'fr',
      });
      const read = await service.getSession({ appName, userId, sessionId: 's1', events: 'full' });
      expect(read?.events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
      expect(read?.events[1202]?.content?.parts[0]?.text).toBe('q1203');
      expect(read?.events[5]?.actions.stateDelta).toEqual({
        mood: 'ok',
        'app:theme': 'dark',
        'user:lang': 'fr',
      });
      expect(read?.state).toEqual(result.session.state);
      const listed = await service.listSessions({ appName, userId });
      expect(listed.map((summary) => [summary.sessionId, summary.eventCount])).toEqual([
        ['s1', 1203],
      ]);
      // Appends continue the numbering.
      const next = await service.appendEvent({
        appName,
        userId,
        sessionId: 's1',
        event: userTextEvent({ text: 'after' }),
      });
      expect(next.seq).toBe(1204);
    });

    it('stores a compaction as appendCompaction would: it becomes the checkpoint', async () => {
      const service = await create();
      const events = [...texts(4), compactionEvent({ startSeq: 1, endSeq: 3, timestamp: 5 })];
      events.push(...texts(2));
      await service.importSession({ appName, userId, sessionId: 'c1', events });
      const view = await service.loadView({ appName, userId, sessionId: 'c1' });
      expect(view.checkpoint?.seq).toBe(5);
      expect(view.checkpoint?.actions.compaction).toMatchObject({ startSeq: 1, endSeq: 3 });
      expect(view.tail.map((event) => event.seq)).toEqual([4, 6, 7]);
      expect(view.lastSeq).toBe(7);
    });

    it('refuses a compaction over its own seq, naming its position; nothing is stored', async () => {
      const service = await create();
      const events = [...texts(2), compactionEvent({ startSeq: 1, endSeq: 3 })];
      const error = await service
        .importSession({ appName, userId, sessionId: 'c2', events })
        .catch((caught: unknown) => caught);
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).message).toMatch(
        /^events\[2\]\.actions\.compaction\.endSeq/,
      );
      expect(await service.getSession({ appName, userId, sessionId: 'c2' })).toBeUndefined();
    });

    it('refuses a bad event late in the stream, naming its position; nothing is stored', async () => {
      const service = await create();
      const events = texts(1500);
      events[1400] = { ...(events[1400] as NewEvent), timestamp: Number.POSITIVE_INFINITY };
      const error = await service
        .importSession({ appName, userId, sessionId: 'bad', events })
        .catch((caught: unknown) => caught);
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).message).toMatch(/^events\[1400\]\.timestamp: /);
      expect(await service.getSession({ appName, userId, sessionId: 'bad' })).toBeUndefined();
      expect(await service.listSessions({ appName, userId })).toEqual([]);
      // The id is free again.
      const retry = await service.importSession({
        appName,
        userId,
        sessionId: 'bad',
        events: texts(3),
      });
      expect(retry.eventCount).toBe(3);
    });

    it('is invisible while it runs and leaves nothing when aborted mid-stream', async () => {
      const service = await create();
      const controller = new AbortController();
      const { stream, paused } = pausingStream(texts(2000), 1200);
      const running = service
        .importSession({
          appName,
          userId,
          sessionId: 'live',
          events: stream,
          signal: controller.signal,
        })
        .catch((caught: unknown) => caught);
      await paused;
      expect(await service.getSession({ appName, userId, sessionId: 'live' })).toBeUndefined();
      expect(await service.listSessions({ appName, userId })).toEqual([]);
      controller.abort(new Error('stop the import'));
      const error = await running;
      expect((error as Error).message).toMatch(/stop the import/);
      expect(await service.getSession({ appName, userId, sessionId: 'live' })).toBeUndefined();
      expect(await service.listSessions({ appName, userId })).toEqual([]);
      const retry = await service.importSession({
        appName,
        userId,
        sessionId: 'live',
        events: texts(2000),
      });
      expect(retry.eventCount).toBe(2000);
    });

    it('refuses an id that exists and leaves that session as it was', async () => {
      const service = await create();
      await service.createSession({ appName, userId, sessionId: 'taken', state: { keep: 1 } });
      await service.appendEvent({
        appName,
        userId,
        sessionId: 'taken',
        event: userTextEvent({ text: 'mine' }),
      });
      const error = await service
        .importSession({ appName, userId, sessionId: 'taken', events: texts(3) })
        .catch((caught: unknown) => caught);
      expect(SessionAlreadyExistsError.isInstance(error)).toBe(true);
      const session = await service.getSession({
        appName,
        userId,
        sessionId: 'taken',
        events: 'full',
      });
      expect(session?.state).toEqual({ keep: 1 });
      expect(session?.events.map((event) => event.content?.parts[0]?.text)).toEqual(['mine']);
    });

    it('generates a session id when none is given', async () => {
      const service = await create();
      const result = await service.importSession({ appName, userId, events: texts(2) });
      expect(result.session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      const read = await service.getSession({
        appName,
        userId,
        sessionId: result.session.sessionId,
      });
      expect(read?.events).toHaveLength(2);
    });
  });
}
