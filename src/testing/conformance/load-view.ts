import { describe, expect, it } from 'vitest';
import { type ConformanceContext, make } from './context.js';

/** loadView: the checkpoint and the tail after it, late and superseded compactions. */
export function describeLoadView(context: ConformanceContext): void {
  const { newSession, appendMany } = context;
  describe('loadView', () => {
    it('is every event when there is no compaction', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 3);
      const view = await service.loadView(key);
      expect(view.checkpoint).toBeUndefined();
      expect(view.tail.map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(view.lastSeq).toBe(3);
    });

    it('is empty with lastSeq 0 for an empty session', async () => {
      const { service } = context;
      const key = await newSession();
      expect(await service.loadView(key)).toEqual({
        checkpoint: undefined,
        tail: [],
        lastSeq: 0,
      });
    });

    it('is the checkpoint plus the events after its endSeq', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 5);
      const compaction = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 3 }),
        expectedCheckpointSeq: null,
      });
      await appendMany(key, 2);
      const view = await service.loadView(key);
      expect(view.checkpoint).toEqual(compaction);
      expect(view.tail.map((event) => event.seq)).toEqual([4, 5, 7, 8]);
      expect(view.lastSeq).toBe(8);
    });

    it('keeps events appended before a late compaction visible (ranges by seq)', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 3);
      // Planned when the session held 3 events; 2 more arrived before it was written.
      const early = make.compaction({ startSeq: 1, endSeq: 3 });
      await appendMany(key, 2);
      const stored = await service.appendCompaction({
        ...key,
        event: early,
        expectedCheckpointSeq: null,
      });
      expect(stored.seq).toBe(6);
      const view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(6);
      expect(view.tail.map((event) => event.seq)).toEqual([4, 5]);
    });

    it('picks the largest endSeq, ties to the later seq, and hides superseded summaries', async () => {
      const { service } = context;
      const key = await newSession();
      await appendMany(key, 6);
      const first = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 5, text: 'A' }),
        expectedCheckpointSeq: null,
      });
      // A stale-looking compaction that covers less: stored, but not the checkpoint.
      const smaller = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 3, text: 'B' }),
        expectedCheckpointSeq: first.seq,
      });
      let view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(first.seq);
      expect(view.tail.map((event) => event.seq)).toEqual([6]);
      expect(smaller.seq).toBe(8);
      const tie = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 5, text: 'C' }),
        expectedCheckpointSeq: first.seq,
      });
      view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(tie.seq);
      expect(view.checkpoint?.actions.compaction.compactedContent.parts[0]?.text).toBe('C');
      expect(view.tail.map((event) => event.seq)).toEqual([6]);
      await appendMany(key, 1);
      const rolling = await service.appendCompaction({
        ...key,
        event: make.compaction({ startSeq: 1, endSeq: 10, text: 'D' }),
        expectedCheckpointSeq: tie.seq,
      });
      view = await service.loadView(key);
      expect(view.checkpoint?.seq).toBe(rolling.seq);
      expect(view.tail).toEqual([]);
      expect(view.lastSeq).toBe(rolling.seq);
    });
  });
}
