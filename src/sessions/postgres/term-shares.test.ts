import { expect, it } from 'vitest';
import { TermShares } from './term-shares.js';

it("reads common lexemes' shares, and takes half the least one's for any other", async () => {
  let reads = 0;
  const shares = new TermShares({
    read: async () => {
      reads++;
      // pg_stats: each element's frequency, then the minimum, the maximum, the null share.
      return [{ elems: ['gull', 'heron'], freqs: [0.4, 0.02, 0.02, 0.4, 0] }];
    },
  });
  expect(shares.rareShare()).toBe(undefined);
  await shares.refresh();
  await shares.refresh();
  expect(reads).toBe(1);
  expect([shares.word('gull'), shares.word('heron'), shares.word('ibis')]).toEqual([
    0.4,
    0.02,
    undefined,
  ]);
  expect(shares.prefix('he')).toBe(0.02);
  expect(shares.rareShare()).toBe(0.01);
});

it('has no rare share before ANALYZE', async () => {
  const shares = new TermShares({ read: async () => [] });
  await shares.refresh();
  expect(shares.rareShare()).toBe(undefined);
  expect(shares.word('gull')).toBe(undefined);
});
