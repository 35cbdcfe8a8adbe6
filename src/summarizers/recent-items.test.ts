import { describe, expect, it } from 'vitest';
import { RecentItems } from './recent-items.js';

/** The array version it replaces (`indexOf` + `splice`), the reference for its order. */
function rememberInArray(list: string[], item: string, keepFirst: boolean): void {
  const index = list.indexOf(item);
  if (index !== -1) {
    if (keepFirst) return;
    list.splice(index, 1);
  }
  list.push(item);
}

describe('RecentItems', () => {
  it('keeps the order the array version kept: a repeat moves to the end', () => {
    const items = new RecentItems(['a', 'b']);
    items.remember('c');
    items.remember('a');
    expect(items.toArray()).toEqual(['b', 'c', 'a']);
  });

  it('leaves a repeat in place with keepFirst', () => {
    const items = new RecentItems(['goal', 'b']);
    items.remember('goal', true);
    items.remember('d', true);
    expect(items.toArray()).toEqual(['goal', 'b', 'd']);
  });

  it('matches the array version over a long pseudo-random sequence', () => {
    const reference: string[] = [];
    const items = new RecentItems();
    let state = 7;
    for (let step = 0; step < 5_000; step++) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      const item = `item-${state % 97}`;
      const keepFirst = state % 5 === 0;
      rememberInArray(reference, item, keepFirst);
      items.remember(item, keepFirst);
    }
    expect(items.toArray()).toEqual(reference);
    expect(items.size).toBe(reference.length);
  });

  it('retain drops the items the predicate refuses, in order', () => {
    const items = new RecentItems(['a(1)', 'b(2)', 'c(3)']);
    items.retain((item) => item !== 'b(2)');
    expect(items.toArray()).toEqual(['a(1)', 'c(3)']);
  });
});
