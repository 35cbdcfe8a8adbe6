import { describe, expect, it } from 'vitest';
import { ImportError } from './errors.js';
import { assertNestingDepth, assertValueDepth, decodeTranscript } from './text-input.js';

describe('decodeTranscript', () => {
  it('drops a byte-order mark and reports nothing for valid UTF-8', () => {
    const bytes = new TextEncoder().encode('\uFEFF{"a":"é"}\n');
    expect(decodeTranscript(bytes)).toEqual({ text: '{"a":"é"}\n', repairs: [] });
  });

  it('replaces invalid bytes and names each line that held some', () => {
    const bytes = Buffer.from('ok\nbad \xff here\nok\n\xc3\n', 'latin1');
    const { text, repairs } = decodeTranscript(bytes);
    expect(text).toBe('ok\nbad \uFFFD here\nok\n\uFFFD\n');
    expect(repairs.map((repair) => repair.location)).toEqual(['line 2', 'line 4']);
    expect(repairs[0]?.kind).toBe('invalid_utf8_replaced');
  });
});

describe('assertNestingDepth', () => {
  it('counts brackets outside strings only', () => {
    const inString = JSON.stringify({ text: '[['.repeat(1000) });
    expect(() => assertNestingDepth(inString, { maxDepth: 3 })).not.toThrow();
    expect(() => assertNestingDepth('{"a":"\\"[["}', { maxDepth: 1 })).not.toThrow();
  });

  it('names the line where the nesting goes too deep', () => {
    const text = `{"a": 1}\n[[[[1]]]]\n`;
    const error = (() => {
      try {
        assertNestingDepth(text, { maxDepth: 3, format: 'claude-code' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(ImportError.isInstance(error)).toBe(true);
    expect((error as ImportError).line).toBe(2);
  });

  it('checks a parsed value without recursion', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(() => assertValueDepth(deep)).toThrow(/deeper than 528 levels/);
    expect(() => assertValueDepth({ a: [1, { b: 2 }] }, { maxDepth: 3 })).not.toThrow();
  });
});
