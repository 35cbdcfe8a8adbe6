import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../events/errors.js';
import { CompactionConflictError, SessionNotFoundError } from '../../sessions/errors.js';
import { type ConformanceContext, make, rejection } from './context.js';

/** appendCompaction: expectedCheckpointSeq conflicts and range validation. */
export function describeAppendCompaction(context: ConformanceContext): void {
  const { newSession, appendMany, listAll } = context;
  describe('appendCompaction', () => {
    it('succeeds when expectedCheckpointSeq matches, conflicts when stale', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 4);
      const first = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 2 }),
        expectedCheckpointSeq: null,
      });
      expect(first.seq).toBe(5);
      expect(first.actions.compaction.endSeq).toBe(2);
      const staleNull = await rejection(
        service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 4 }),
          expectedCheckpointSeq: null,
        }),
      );
      expect(CompactionConflictError.isInstance(staleNull)).toBe(true);
      expect(staleNull).toMatchObject({ expectedCheckpointSeq: null, actualCheckpointSeq: 5 });
      const wrong = await rejection(
        service.appendCompaction({
          ...key,
          event: make.compaction({ startSeq: 1, endSeq: 4 }),
          expectedCheckpointSeq: 3,
        }),
      );
      expect(CompactionConflictError.isInstance(wrong)).toBe(true);
      expect(await listAll(key)).toHaveLength(5);
      const second = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 4 }),
        expectedCheckpointSeq: 5,
      });
      expect(second.seq).toBe(6);
    });

    it('lets exactly one of several concurrent compactions of one window win', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 6);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, index) =>
          service.appendCompaction({
            ...key,
            event: make.compaction({ startSeq: 1, endSeq: 4, text: `racer ${index}` }),
            expectedCheckpointSeq: null,
          }),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.filter((result) => result.status === 'rejected');
      expect(won).toHaveLength(1);
      for (const result of lost) {
        expect(CompactionConflictError.isInstance((result as PromiseRejectedResult).reason)).toBe(
          true,
        );
      }
      const compactions = (await listAll(key)).filter((event) => event.actions.compaction);
      expect(compactions).toHaveLength(1);
    });

    it('rejects a non-compaction event and stores nothing', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 2);
      const error = await rejection(
        service.appendCompaction({
          ...key,
          event: make.message('x'),
          expectedCheckpointSeq: null,
        }),
      );
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).path).toBe('event.actions.compaction');
      expect(await listAll(key)).toHaveLength(2);
    });

    it.each([
      ['start after end', { startSeq: 3, endSeq: 2 }, 'event.actions.compaction.startSeq'],
      ['start below 1', { startSeq: 0, endSeq: 2 }, 'event.actions.compaction.startSeq'],
      [
        'end beyond the stored events',
        { startSeq: 1, endSeq: 3 },
        'event.actions.compaction.endSeq',
      ],
      ['fractional end', { startSeq: 1, endSeq: 1.5 }, 'event.actions.compaction.endSeq'],
    ])('rejects a malformed range (%s) and stores nothing', async (_, range, path) => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 2);
      const error = await rejection(
        service.appendCompaction({
          ...key,
          event: make.compaction(range),
          expectedCheckpointSeq: null,
        }),
      );
      expect(InvalidEventError.isInstance(error)).toBe(true);
      expect((error as InvalidEventError).path).toBe(path);
      expect(await listAll(key)).toHaveLength(2);
      expect((await appendMany(key, 1))[0]?.seq).toBe(3);
    });

    it('rejects a compaction with content', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 2);
      const event = {
        ...make.compaction({ startSeq: 1, endSeq: 2 }),
        content: make.message('x').content,
      };
      const error = await rejection(
        service.appendCompaction({ ...key, event, expectedCheckpointSeq: null }),
      );
      expect(InvalidEventError.isInstance(error)).toBe(true);
    });

    it('throws SessionNotFoundError for a missing session', async () => {
      const { service, appName, userId } = context;
      const error = await rejection(
        service.appendCompaction({
          appName,
          userId,
          sessionId: 'missing',
          event: make.compaction({ startSeq: 1, endSeq: 1 }),
          expectedCheckpointSeq: null,
        }),
      );
      expect(SessionNotFoundError.isInstance(error)).toBe(true);
    });
  });
}
