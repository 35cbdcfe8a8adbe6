import { describe, expect, it } from 'vitest';
import { assertJsonValue } from '../../events/json-value.js';
import { CIRCULAR_MARKER, TOO_DEEP_MARKER, toJsonRecord, toJsonValue } from './to-json-value.js';

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  get length() {
    return Math.hypot(this.x, this.y);
  }
}

describe('toJsonValue', () => {
  it('converts what JSON cannot hold, keeping the data', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { id: 1 };
    const input = {
      when: new Date('2025-03-01T10:00:00.000Z'),
      never: new Date(Number.NaN),
      counts: new Map<unknown, unknown>([
        ['a', 1],
        [2, 10n],
      ]),
      tags: new Set(['x', 'y']),
      big: 12345678901234567890n,
      missing: undefined,
      fn: () => 1,
      list: [1, undefined, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY],
      point: new Point(3, 4),
      error: new TypeError('bad input'),
      bytes: new Uint8Array([1, 2, 3]),
      pattern: /a+b/g,
      cyclic,
      twice: [shared, shared],
    };
    const output = toJsonValue(input);
    expect(output).toEqual({
      when: '2025-03-01T10:00:00.000Z',
      never: null,
      counts: { a: 1, '2': '10' },
      tags: ['x', 'y'],
      big: '12345678901234567890',
      list: [1, null, null, null, null],
      point: { x: 3, y: 4 },
      error: { name: 'TypeError', message: 'bad input' },
      bytes: [1, 2, 3],
      pattern: '/a+b/g',
      cyclic: { name: 'loop', self: CIRCULAR_MARKER },
      twice: [{ id: 1 }, { id: 1 }],
    });
    expect(() => assertJsonValue(output, 'result')).not.toThrow();
    // The input is left as it was.
    expect(input.cyclic.self).toBe(cyclic);
    expect(input.counts).toBeInstanceOf(Map);
  });

  it('passes plain JSON through unchanged and bounds the depth', () => {
    const plain = { a: [1, 'two', { three: true, four: null }] };
    expect(toJsonValue(plain)).toEqual(plain);
    expect(toJsonValue(undefined)).toBeUndefined();
    let deep: unknown = 'bottom';
    for (let level = 0; level < 1000; level++) deep = [deep];
    expect(JSON.stringify(toJsonValue(deep))).toContain(TOO_DEEP_MARKER);
  });

  it('keeps a __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}');
    const output = toJsonValue(input) as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('converts each value of a state delta, dropping undefined', () => {
    expect(toJsonRecord({ at: new Date(0), gone: undefined, n: 1n })).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      n: '1',
    });
  });
});
