import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../events/errors.js';
import type { SessionKey } from '../../events/types.js';
import type { ListAllSessionsOptions, SessionOverview } from '../../sessions/session-service.js';
import { restoreClock, stepClock } from './clock.js';
import { type ConformanceContext, make, rejection } from './context.js';

/**
 * `listAllSessions` (optional capability): every user's sessions, filtered by app and users,
 * newest first, with event and compaction counts, bounded by `limit`.
 */
export function describeListAllSessions(context: ConformanceContext): void {
  describe('listAllSessions', () => {
    afterEach(restoreClock);
    function listAll(options: ListAllSessionsOptions): Promise<SessionOverview[]> {
      const { service } = context;
      if (!service.listAllSessions) throw new Error('the store has no listAllSessions');
      return service.listAllSessions(options);
    }

    /** Creates a session and appends `count` messages, one millisecond after the last write. */
    async function touch(key: SessionKey, count: number, create = true): Promise<void> {
      stepClock(); // the next write is strictly newer (clock.ts)
      if (create) await context.service.createSession(key);
      await context.appendMany(key, count);
    }

    it('lists every user of the app newest first, with event and compaction counts', async () => {
      const { service, appName } = context;
      const first = { appName, userId: 'user-a', sessionId: 'first' };
      const second = { appName, userId: 'user-b', sessionId: 'second' };
      const third = { appName, userId: 'user-c', sessionId: 'third' };
      const elsewhere = { appName: `${appName}-other`, userId: 'user-a', sessionId: 'elsewhere' };
      await touch(first, 3);
      await touch(second, 0);
      await touch(third, 2);
      await touch(elsewhere, 1);
      // Two compactions stored (the second supersedes the first): both counted.
      await service.appendCompaction({
        ...first,
        event: make.compaction({ startSeq: 1, endSeq: 2 }),
        expectedCheckpointSeq: null,
      });
      stepClock();
      await service.appendCompaction({
        ...first,
        event: make.compaction({ startSeq: 1, endSeq: 3 }),
        expectedCheckpointSeq: 4,
      });
      const listed = await listAll({ appName });
      expect(
        listed.map((session) => [
          session.userId,
          session.sessionId,
          session.eventCount,
          session.compactionCount,
        ]),
      ).toEqual([
        ['user-a', 'first', 5, 2],
        ['user-c', 'third', 2, 0],
        ['user-b', 'second', 0, 0],
      ]);
      expect(listed[0]).toMatchObject({ appName });
      const times = listed.map((session) => session.lastUpdateTime);
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      expect(times[0]).toBe((await service.getSession(first))?.lastUpdateTime);
      await service.deleteSession(elsewhere);
    });

    it('filters by a set of users; an empty set matches none', async () => {
      const { appName } = context;
      await touch({ appName, userId: 'user-a', sessionId: 'a-1' }, 1);
      await touch({ appName, userId: 'user-b', sessionId: 'b-1' }, 1);
      await touch({ appName, userId: 'user-a', sessionId: 'a-2' }, 0);
      await touch({ appName, userId: 'user-c', sessionId: 'c-1' }, 0);
      const picked = await listAll({ appName, userIds: ['user-a', 'user-c', 'nobody'] });
      expect(picked.map((session) => session.sessionId)).toEqual(['c-1', 'a-2', 'a-1']);
      expect(await listAll({ appName, userIds: [] })).toEqual([]);
      expect(await listAll({ appName: `${appName}-none` })).toEqual([]);
    });

    it('applies the limit (default 50, at most 1000) and spans apps when none is given', async () => {
      const { service, appName } = context;
      for (let index = 0; index < 51; index++) {
        await service.createSession({ appName, userId: `user-${index}`, sessionId: `s-${index}` });
      }
      expect(await listAll({ appName })).toHaveLength(50);
      expect(await listAll({ appName, limit: 3 })).toHaveLength(3);
      const newest = { appName, userId: 'user-7', sessionId: 's-7' };
      const otherApp = { appName: `${appName}-other`, userId: 'user-1', sessionId: 'latest' };
      await touch(newest, 1, false);
      await touch(otherApp, 1);
      // Other tests may share the store: the two newest sessions of all apps are these.
      const everywhere = await listAll({ limit: 2 });
      expect(everywhere.map((session) => [session.appName, session.sessionId])).toEqual([
        [otherApp.appName, 'latest'],
        [appName, 's-7'],
      ]);
      await service.deleteSession(otherApp);
      expect((await listAll({ appName: otherApp.appName })).length).toBe(0);
    });

    it('rejects a bad limit or user id, naming the option', async () => {
      const { appName } = context;
      for (const limit of [0, 1001, 2.5, Number.NaN]) {
        const error = await rejection(listAll({ appName, limit }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect((error as InvalidArgumentError).argument).toBe('limit');
      }
      const error = await rejection(listAll({ appName, userIds: ['ok', ''] }));
      expect((error as InvalidArgumentError).argument).toBe('userId');
      const aborted = AbortSignal.abort(new Error('stop'));
      expect(await rejection(listAll({ appName, signal: aborted }))).toMatchObject({
        message: 'stop',
      });
    });
  });
}
