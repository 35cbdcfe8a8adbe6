import { describe, expect, it } from 'vitest';
import { groupDigits } from './group-digits.js';

describe('groupDigits', () => {
  it('writes every number as toLocaleString("en-US") does', () => {
    const values = [
      0,
      -0,
      1,
      7,
      12,
      999,
      1000,
      -1000,
      1204,
      12_345,
      999_999,
      1_000_000,
      -1_234_567,
      20_000,
      151_721,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
      2 ** 60,
      1e21,
      1.5,
      1234.5678,
      -0.25,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (let power = 0; power < 16; power++) values.push(10 ** power, 10 ** power - 1);
    for (const value of values) expect(groupDigits(value)).toBe(value.toLocaleString('en-US'));
  });
});
