import { describe, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import {
  CompactionConflictError,
  SessionAlreadyExistsError,
  SessionNotFoundError,
} from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** Concurrent appends, compactions, deletions and creations. */
export function describeRaces(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('races', () => {
    it('keeps events appended while a compaction was planned visible after it', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 4);
      const planned = await service.loadView(key);
      const late = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          service.appendEvent({ ...key, event: make.message(`late ${index}`) }),
        ),
      );
      const compaction = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: planned.lastSeq }),
        expectedCheckpointSeq: planned.checkpoint?.seq ?? null,
      });
      expect(compaction.seq).toBe(10);
      const view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(10);
      expect(view.tail.map((event) => event.seq)).toEqual(late.map((event) => event.seq).sort());
    });

    it('lets one of two racing compactions win while appends go on; nothing is lost', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 6);
      const appends = Array.from({ length: 12 }, (_, index) =>
        service.appendEvent({ ...key, event: make.message(`during ${index}`) }),
      );
      const compactions = [4, 6].map((endSeq) =>
        service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq, text: `to ${endSeq}` }),
          expectedCheckpointSeq: null,
        }),
      );
      const settled = await Promise.allSettled(compactions);
      const appended = await Promise.all(appends);
      const won = settled.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = settled.find((result) => result.status === 'rejected');
      expect(CompactionConflictError.isInstance(lost?.reason)).toBe(true);
      const winner = (won[0] as PromiseFulfilledResult<Event>).value;
      const all = await listAll(key);
      expect(all.map((event) => event.seq)).toEqual(
        Array.from({ length: 19 }, (_, index) => index + 1),
      );
      const view = await service.loadView(key);
      expect(view.checkpoint).toStrictEqual(winner);
      const endSeq = winner.actions.compaction!.endSeq;
      expect(view.tail.map((event) => event.seq)).toEqual(
        all
          .filter((event) => event.seq > endSeq && !event.actions.compaction)
          .map((event) => event.seq),
      );
      expect(view.tail.length).toBe(6 - endSeq + appended.length);
    });

    it('never resurrects a session deleted while appends were in flight', async () => {
      const { service, appName, userId } = context;
      const key = await newSession();
      await appendMany(key, 3);
      const appends = Array.from({ length: 10 }, (_, index) =>
        service.appendEvent({ ...key, event: make.message(`racing ${index}`) }),
      );
      const deletion = service.deleteSession(key);
      const results = await Promise.allSettled(appends);
      await deletion;
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(SessionNotFoundError.isInstance(result.reason)).toBe(true);
        }
      }
      expect(await service.getSession(key)).toBeUndefined();
      expect(await service.listSessions({ appName, userId })).toEqual([]);
      const after = await rejection(service.appendEvent({ ...key, event: make.message('late') }));
      expect(SessionNotFoundError.isInstance(after)).toBe(true);
      expect(await service.getSession(key)).toBeUndefined();
      await service.createSession(key);
      expect(await listAll(key)).toEqual([]);
    });

    it('lets exactly one of two racing createSession calls with one id win', async () => {
      const { service, appName, userId } = context;
      const results = await Promise.allSettled(
        Array.from({ length: 4 }, (_, index) =>
          service.createSession({ appName, userId, sessionId: 'contested', state: { index } }),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') {
          expect(SessionAlreadyExistsError.isInstance(result.reason)).toBe(true);
        }
      }
      const winner = (won[0] as PromiseFulfilledResult<{ state: Record<string, unknown> }>).value;
      const loaded = await service.getSession({ appName, userId, sessionId: 'contested' });
      expect(loaded?.state).toStrictEqual(winner.state);
    });
  });
}
