import { describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** Isolation by app and user. */
export function describeIsolation(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('isolation by app and user', () => {
    it('hides a session from another user and another app', async () => {
      const { service, appName } = context;
      const key = await newSession('private');
      await appendMany(key, 2);
      for (const other of [
        { ...key, userId: 'intruder' },
        { ...key, appName: `${appName}-other` },
      ]) {
        expect(await service.getSession(other)).toBeUndefined();
        expect(SessionNotFoundError.isInstance(await rejection(service.loadView(other)))).toBe(
          true,
        );
        expect(SessionNotFoundError.isInstance(await rejection(service.listEvents(other)))).toBe(
          true,
        );
        expect(
          SessionNotFoundError.isInstance(
            await rejection(service.appendEvent({ ...other, event: make.message('sneaky') })),
          ),
        ).toBe(true);
        expect(
          SessionNotFoundError.isInstance(
            await rejection(
              service.appendCompaction({
                ...other,
                event: make.compaction({ startSeq: 1, endSeq: 1 }),
                expectedCheckpointSeq: null,
              }),
            ),
          ),
        ).toBe(true);
        await service.deleteSession(other);
      }
      expect((await listAll(key)).map((event) => event.seq)).toEqual([1, 2]);
    });

    it('keeps same-id sessions of different users apart', async () => {
      const { service, appName } = context;
      const mine = await newSession('shared-id');
      await service.createSession({
        appName,
        userId: 'user-2',
        sessionId: 'shared-id',
        state: { who: 2 },
      });
      const theirs = { appName, userId: 'user-2', sessionId: 'shared-id' };
      await appendMany(mine, 2);
      const [first] = await appendMany(theirs, 1);
      expect(first?.seq).toBe(1);
      expect(await listAll(mine)).toHaveLength(2);
      expect((await service.getSession(theirs))?.state).toEqual({ who: 2 });
      await service.deleteSession(theirs);
      expect(await listAll(mine)).toHaveLength(2);
    });
  });
}
