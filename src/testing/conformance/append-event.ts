import { afterEach, describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import type { NewEvent } from '../../events/types.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { restoreClock, stepClock } from './clock.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** appendEvent: seq numbering, field round trip, state prefixes, validation. */
export function describeAppendEvent(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('appendEvent', () => {
    afterEach(restoreClock);
    it('assigns seq from 1, strictly increasing and gapless', async () => {
      const key = await newSession();
      const stored = await appendMany(key, 5);
      expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
      expect((await listAll(key)).map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
    });

    it('numbers each session on its own', async () => {
      const first = await newSession();
      const second = await newSession();
      await appendMany(first, 3);
      const [event] = await appendMany(second, 1);
      expect(event?.seq).toBe(1);
    });

    it('ignores a seq given by the caller', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 2);
      const event = { ...make.message('with seq'), seq: 1 } as NewEvent;
      const stored = await service.appendEvent({ ...key, event });
      expect(stored.seq).toBe(3);
    });

    it('assigns unique gapless seqs to concurrent appends', async () => {
      const { service } = context;
      const key = await newSession();
      const stored = await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          service.appendEvent({ ...key, event: make.message(`c${index}`) }),
        ),
      );
      const seqs = stored.map((event) => event.seq).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
      expect(await listAll(key)).toHaveLength(40);
    });

    it('round-trips every event field', async () => {
      const { service } = context;
      const key = await newSession();
      const event: NewEvent = {
        ...make.functionCall('call-1', 'search', { query: 'ünïcode ✓', limit: 3 }),
        branch: 'root.child',
        usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 7, totalTokenCount: 127 },
        longRunningToolIds: ['call-1'],
        customMetadata: { source: 'test', list: [1, 2, null] },
        turnComplete: true,
      };
      const stored = await service.appendEvent({ ...key, event });
      expect(stored).toEqual({ ...event, seq: 1 });
      expect((await listAll(key))[0]).toEqual({ ...event, seq: 1 });
    });

    it('applies stateDelta to the session state', async () => {
      const { service } = context;
      const key = await newSession();
      await service.appendEvent({ ...key, event: make.withState({ step: 1, keep: 'a' }) });
      await service.appendEvent({ ...key, event: make.withState({ step: 2 }) });
      const session = await service.getSession(key);
      expect(session?.state).toEqual({ step: 2, keep: 'a' });
    });

    it('never stores temp: state, in the state or in the stored event', async () => {
      const { service } = context;
      const key = await newSession();
      const stored = await service.appendEvent({
        ...key,
        event: make.withState({ 'temp:scratch': 'x', kept: true }),
      });
      expect(stored.actions.stateDelta).toEqual({ kept: true });
      const session = await service.getSession({ ...key, events: 'full' });
      expect(session?.state).toEqual({ kept: true });
      expect(session?.events[0]?.actions.stateDelta).toEqual({ kept: true });
    });

    it('shares user: state across the user and app: state across the app', async () => {
      const { service, appName } = context;
      const first = await newSession();
      await service.appendEvent({
        ...first,
        event: make.withState({ 'user:language': 'fr', 'app:version': 2, own: 1 }),
      });
      const second = await newSession();
      const other = await service.createSession({ appName, userId: 'user-2' });
      const secondState = (await service.getSession(second))?.state;
      expect(secondState).toEqual({ 'user:language': 'fr', 'app:version': 2 });
      const otherState = (
        await service.getSession({ appName, userId: 'user-2', sessionId: other.sessionId })
      )?.state;
      expect(otherState).toEqual({ 'app:version': 2 });
      expect((await service.getSession(first))?.state).toEqual({
        'user:language': 'fr',
        'app:version': 2,
        own: 1,
      });
    });

    it('updates lastUpdateTime on append', async () => {
      const { service, appName, userId } = context;
      const created = await service.createSession({ appName, userId });
      const key = { appName, userId, sessionId: created.sessionId };
      stepClock();
      await appendMany(key, 1);
      const session = await service.getSession(key);
      expect(session!.lastUpdateTime).toBeGreaterThan(created.lastUpdateTime);
    });

    it('throws SessionNotFoundError for a missing session', async () => {
      const { service, appName, userId } = context;
      const error = await rejection(
        service.appendEvent({ appName, userId, sessionId: 'missing', event: make.message('x') }),
      );
      expect(SessionNotFoundError.isInstance(error)).toBe(true);
    });

    it.each([
      ['no id', (event: NewEvent) => ({ ...event, id: '' }), 'event.id'],
      ['no author', (event: NewEvent) => ({ ...event, author: undefined }), 'event.author'],
      [
        'bad timestamp',
        (event: NewEvent) => ({ ...event, timestamp: Number.NaN }),
        'event.timestamp',
      ],
      ['no actions', (event: NewEvent) => ({ ...event, actions: undefined }), 'event.actions'],
      [
        'bad role',
        (event: NewEvent) => ({ ...event, content: { role: 'system', parts: [] } }),
        'event.content.role',
      ],
      [
        'call without id',
        (event: NewEvent) => ({
          ...event,
          content: { role: 'model', parts: [{ functionCall: { name: 'search', args: {} } }] },
        }),
        'event.content.parts[0].functionCall.id',
      ],
      [
        'text not a string',
        (event: NewEvent) => ({ ...event, content: { role: 'user', parts: [{ text: 1 }] } }),
        'event.content.parts[0].text',
      ],
    ])(
      'rejects an invalid event (%s) with InvalidEventError and stores nothing',
      async (_, mutate, path) => {
        const { service } = context;
        const key = await newSession();
        const event = mutate(make.message('bad')) as unknown as NewEvent;
        const error = await rejection(service.appendEvent({ ...key, event }));
        expect(InvalidEventError.isInstance(error)).toBe(true);
        expect((error as InvalidEventError).path).toBe(path);
        expect(await listAll(key)).toEqual([]);
        expect((await appendMany(key, 1))[0]?.seq).toBe(1);
      },
    );

    it('rejects a compaction event (use appendCompaction)', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 2);
      const error = await rejection(
        service.appendEvent({ ...key, event: make.compaction({ startSeq: 1, endSeq: 2 }) }),
      );
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).path).toBe('event.actions.compaction');
      expect(await listAll(key)).toHaveLength(2);
    });

    it('rejects an already aborted signal and stores nothing', async () => {
      const { service } = context;
      const key = await newSession();
      const controller = new AbortController();
      controller.abort();
      await expect(
        service.appendEvent({ ...key, event: make.message('x'), signal: controller.signal }),
      ).rejects.toThrow();
      expect(await listAll(key)).toEqual([]);
    });
  });
}
