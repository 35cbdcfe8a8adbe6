import { describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** listEvents: paging both ways with cursors. */
export function describeListEvents(context: ConformanceContext): void {
  const { newSession, appendMany } = context;
  describe('listEvents', () => {
    it('pages forward with cursors and ends without one', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 7);
      const seen: number[] = [];
      let cursor: number | undefined;
      let pages = 0;
      do {
        const page = await service.listEvents({ ...key, limit: 3, afterSeq: cursor });
        seen.push(...page.events.map((event) => event.seq));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 10);
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(pages).toBe(3);
    });

    it('pages backward with cursors', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 5);
      const first = await service.listEvents({ ...key, limit: 2, order: 'desc' });
      expect(first.events.map((event) => event.seq)).toEqual([5, 4]);
      expect(first.nextCursor).toBe(4);
      const second = await service.listEvents({
        ...key,
        limit: 2,
        order: 'desc',
        beforeSeq: first.nextCursor,
      });
      expect(second.events.map((event) => event.seq)).toEqual([3, 2]);
      const third = await service.listEvents({
        ...key,
        limit: 2,
        order: 'desc',
        beforeSeq: second.nextCursor,
      });
      expect(third.events.map((event) => event.seq)).toEqual([1]);
      expect(third.nextCursor).toBeUndefined();
    });

    it('gives no cursor when a page ends exactly at the last event', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 4);
      const page = await service.listEvents({ ...key, limit: 4 });
      expect(page.events).toHaveLength(4);
      expect(page.nextCursor).toBeUndefined();
    });

    it('bounds by afterSeq and beforeSeq together and includes compactions', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 3);
      await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 2 }),
        expectedCheckpointSeq: null,
      });
      await appendMany(key, 2);
      const page = await service.listEvents({ ...key, afterSeq: 2, beforeSeq: 6 });
      expect(page.events.map((event) => event.seq)).toEqual([3, 4, 5]);
      expect(page.events[1]?.actions.compaction?.endSeq).toBe(2);
    });

    it('throws SessionNotFoundError for a missing session', async () => {
      const { service, appName, userId } = context;
      const error = await rejection(service.listEvents({ appName, userId, sessionId: 'missing' }));
      expect(SessionNotFoundError.isInstance(error)).toBe(true);
    });
  });
}
