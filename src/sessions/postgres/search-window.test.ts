import { describe, expect, it } from 'vitest';
import { resolveSearchOptions } from '../search-text.js';
import {
  buildSearchStatements,
  MAX_WINDOW_BUCKETS,
  SEQ_BUCKET_SIZE,
  searchPostgresEvents,
  termReads,
  windowLowBucket,
} from './search.js';

const search = resolveSearchOptions({ appName: 'a', userId: 'u', sessionId: 's', query: 'x' });

describe("a term's window of recent seq buckets", () => {
  it('spans 1.25 times the events that hold its cap at its share, whole buckets', () => {
    // 1.25 * 250 / 0.02 = 15,625 events below seq 100,000: seq 84,376 up, bucket 20 up.
    expect(windowLowBucket({ search, share: 0.02, cap: 250, lastSeq: 100_000 })).toBe(20);
    expect(20 * SEQ_BUCKET_SIZE).toBeLessThanOrEqual(84_376);
    // Below `beforeSeq` (seq 50,000 down): seq 34,376 up, bucket 8.
    const before = { ...search, beforeSeq: 50_001 };
    expect(windowLowBucket({ search: before, share: 0.02, cap: 250, lastSeq: 100_000 })).toBe(8);
  });

  it('is none when it would reach the first event, `afterSeq`, or too many buckets', () => {
    expect(windowLowBucket({ search, share: 0.02, cap: 250, lastSeq: 15_000 })).toBe(undefined);
    const after = { ...search, afterSeq: 90_000 };
    expect(windowLowBucket({ search: after, share: 0.02, cap: 250, lastSeq: 100_000 })).toBe(
      undefined,
    );
    // 3,125,000 events of 10 million: 763 buckets, past MAX_WINDOW_BUCKETS.
    const share = 0.0001;
    expect(windowLowBucket({ search, share, cap: 250, lastSeq: 10_000_000 })).toBe(undefined);
    expect(3_125_000 / SEQ_BUCKET_SIZE).toBeGreaterThan(MAX_WINDOW_BUCKETS);
    expect(windowLowBucket({ search, share: 0, cap: 250, lastSeq: 100_000 })).toBe(undefined);
  });

  it('reads common terms by a walk, the rest by window in a session or by GIN across sessions', () => {
    const shares = [0.5, 0.15, 0.1, 0.02, 0.001, undefined];
    expect(termReads({ search, shares })).toEqual([
      'walk',
      'walk',
      'window',
      'window',
      'window',
      'window',
    ]);
    const across = { ...search, sessionId: undefined };
    expect(termReads({ search: across, shares })).toEqual([
      'walk',
      'walk',
      'walk',
      'walk',
      'matches',
      'matches',
    ]);
  });
});

describe('a term past the count cap across sessions', () => {
  it('runs the statement again with the walk for that term only', async () => {
    const sent: string[] = [];
    const answers = [
      // The first statement: no hit, term 1 past the cap.
      [{ session_id: null, seq: null, score: null, overflowed: [1] }],
      [],
    ];
    const hits = await searchPostgresEvents({
      search: resolveSearchOptions({ appName: 'a', userId: 'u', query: 'heron egret' }),
      statements: buildSearchStatements('probe'),
      lastSeq: 0,
      query: async (text) => {
        sent.push(text);
        return answers.shift() as never;
      },
      readRow: () => {
        throw new Error('no row to read');
      },
    });
    expect(hits).toEqual([]);
    expect(sent).toHaveLength(2);
    const walks = (text: string, term: number) =>
      text.includes(`WHERE (SELECT df FROM df${term}) >= $11 AND`);
    expect([walks(sent[0]!, 0), walks(sent[0]!, 1)]).toEqual([false, false]);
    expect([walks(sent[1]!, 0), walks(sent[1]!, 1)]).toEqual([false, true]);
  });
});
