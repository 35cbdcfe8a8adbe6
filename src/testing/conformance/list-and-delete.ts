import { describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** listSessions and deleteSession. */
export function describeListAndDelete(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('listSessions and deleteSession', () => {
    it('lists the sessions of one app and user with their event counts', async () => {
      const { service, appName, userId } = context;
      const first = await newSession('s-1');
      await newSession('s-2');
      await appendMany(first, 3);
      await service.createSession({ appName, userId: 'user-2', sessionId: 's-3' });
      await service.createSession({ appName: `${appName}-other`, userId, sessionId: 's-4' });
      const listed = await service.listSessions({ appName, userId });
      const sorted = [...listed].sort((a, b) => a.sessionId.localeCompare(b.sessionId));
      expect(sorted.map((session) => [session.sessionId, session.eventCount])).toEqual([
        ['s-1', 3],
        ['s-2', 0],
      ]);
      expect(sorted[0]).toMatchObject({ appName, userId });
      expect(typeof sorted[0]?.lastUpdateTime).toBe('number');
      expect(await service.listSessions({ appName, userId: 'nobody' })).toEqual([]);
      await service.deleteSession({ appName: `${appName}-other`, userId, sessionId: 's-4' });
    });

    it('deletes the session and all its events; a recreated session starts over', async () => {
      const { service, appName, userId } = context;
      const key = await newSession('to-delete');
      await appendMany(key, 3);
      await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 2 }),
        expectedCheckpointSeq: null,
      });
      await service.deleteSession(key);
      expect(await service.getSession(key)).toBeUndefined();
      expect(await service.listSessions({ appName, userId })).toEqual([]);
      expect(SessionNotFoundError.isInstance(await rejection(service.loadView(key)))).toBe(true);
      await service.createSession({ appName, userId, sessionId: 'to-delete' });
      expect(await listAll(key)).toEqual([]);
      expect((await service.loadView(key)).checkpoint).toBeUndefined();
      expect((await appendMany(key, 1))[0]?.seq).toBe(1);
    });

    it('treats deleting a missing session as a no-op', async () => {
      const { service, appName, userId } = context;
      await expect(
        service.deleteSession({ appName, userId, sessionId: 'never' }),
      ).resolves.toBeUndefined();
    });
  });
}
