import { describe, expect, it } from 'vitest';
import { resolveSearchOptions } from '../search-text.js';
import {
  buildSearchStatements,
  MAX_COUNTED_MATCHES,
  RANGE_ENTRY_COST,
  RANGE_MARGIN,
  rangeReadIsCheaper,
  searchPostgresEvents,
} from './search.js';

describe('the range read of a term below the walk share', () => {
  it('is chosen only when it takes fewer index entries than its GIN read visits rows', () => {
    // 1.16% of 100k events: 1,160 rows against a range of 1.5 * 200 / 0.0116 = 25,862 entries.
    expect(rangeReadIsCheaper({ share: 0.0116, cap: 200, tableRows: 100_000 })).toBe(false);
    // The same share of a million events: 11,600 rows, past the GIN read's count.
    expect(rangeReadIsCheaper({ share: 0.0116, cap: 200, tableRows: 1_000_000 })).toBe(true);
    // The break-even: matches equal to the range's weighted entries.
    const share = 0.015;
    const tableRows = (RANGE_ENTRY_COST * RANGE_MARGIN * 250) / share / share;
    expect(rangeReadIsCheaper({ share, cap: 250, tableRows: tableRows * 0.99 })).toBe(false);
    expect(rangeReadIsCheaper({ share, cap: 250, tableRows: tableRows * 1.01 })).toBe(true);
    expect(MAX_COUNTED_MATCHES).toBeLessThan(0.0116 * 1_000_000);
  });

  it('leaves a term whose GIN read is cheaper to the GIN read and its exact count', async () => {
    const statements = buildSearchStatements('probe');
    const sent: string[] = [];
    const search = resolveSearchOptions({
      appName: 'a',
      userId: 'u',
      sessionId: 's',
      query: 'heron egret ibis stork',
      limit: 5,
    });
    const run = (tableRows: number) =>
      searchPostgresEvents({
        search,
        statements,
        // Only "heron" is common; four terms: a cap of 250, a range of 25,000 events.
        share: (term) => (term.kind === 'word' && term.text === 'heron' ? 0.015 : undefined),
        tableRows,
        // One session of 100k events: the estimate (0.015 * 100k) reaches the minimum.
        scope: { sessions: 1, lastSeq: 100_000, events: 100_000 },
        query: async (text) => {
          sent.push(text);
          return [];
        },
        readRow: () => undefined,
      });
    await run(100_000);
    await run(2_000_000);
    // The range read's statement holds its `filled` step; the GIN read's does not.
    expect(sent.map((text) => text.includes('filled0'))).toEqual([false, true]);
  });
});
