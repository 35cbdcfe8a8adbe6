import { describe, expect, it } from 'vitest';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  HeldBytes,
  JsonValueScanner,
  unexpectedByte,
} from './json-byte-scanner.js';
import { JsonStreamError, RecordTooLargeError } from './stream-errors.js';
import { caught } from './test-helpers/json-splitter.js';

const encoder = new TextEncoder();

/** Where the value starting `text` ends, the text fed `size` bytes at a time (-1: never). */
function valueEnd(text: string, size: number, closer = CLOSE_BRACKET): number {
  const bytes = encoder.encode(text);
  const scanner = new JsonValueScanner({ closer });
  scanner.begin(bytes[0] as number);
  const from = 1;
  for (let start = 0; start < bytes.length; start += size) {
    const chunk = bytes.subarray(start, start + size);
    const end = scanner.findEnd(chunk, Math.max(0, from - start));
    if (end < chunk.length) return start + end;
  }
  return -1;
}

describe('JsonValueScanner', () => {
  it.each([
    ['{"a":[1,"]},"]}, 2', 15],
    ['"a \\" , ] still in the string" ]', 30],
    ['[[], {}]\n', 8],
    ['-12.5e3]', 7],
    ['"escaped backslash \\\\",', 22],
    ['{"unclosed": [1, 2]', -1],
  ])('finds the end of %j at %i, fed in any chunk size', (text, end) => {
    for (const size of [1, 2, 5, 1000]) expect(valueEnd(text, size)).toBe(end);
  });

  it('ends a value at its container’s closing byte only', () => {
    expect(valueEnd('1}]', 1, CLOSE_BRACKET)).toBe(2);
    expect(valueEnd('1]}', 1, CLOSE_BRACE)).toBe(2);
  });

  it('finds the closing quote of a member name and knows when it is inside a string', () => {
    const scanner = new JsonValueScanner({ closer: CLOSE_BRACE });
    scanner.beginString();
    expect(scanner.findStringEnd(encoder.encode('we\\"ird'), 0)).toBe(7);
    expect(scanner.inString).toBe(true);
    expect(scanner.findStringEnd(encoder.encode('\\\\key": 1'), 0)).toBe(5);
    expect(scanner.inString).toBe(false);
  });
});

describe('HeldBytes', () => {
  it('joins the pieces of a value and starts empty again', () => {
    const held = new HeldBytes({ maxRecordBytes: 10 });
    held.begin({ offset: 4 });
    held.add(encoder.encode('ab'));
    held.add(encoder.encode('cd'));
    expect(new TextDecoder().decode(held.take())).toBe('abcd');
    expect(held.offset).toBe(4);
    held.begin({ offset: 9 });
    held.add(encoder.encode('x'));
    expect(new TextDecoder().decode(held.take())).toBe('x');
  });

  it('refuses more than maxRecordBytes, naming where the value starts and its element', () => {
    const held = new HeldBytes({ maxRecordBytes: 3, fileName: 'f.json', format: 'adk' });
    held.begin({ offset: 7, element: 2 });
    held.add(encoder.encode('abc'));
    const error = caught(() => held.add(encoder.encode('d')));
    expect(RecordTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ offset: 7, element: 2, maxRecordBytes: 3 });
  });
});

describe('unexpectedByte', () => {
  it('shows a printable byte as itself and another in hex', () => {
    const printable = unexpectedByte({ byte: 0x78, offset: 3, expected: 'a `,`' });
    expect(JsonStreamError.isInstance(printable)).toBe(true);
    expect(printable.message).toBe("byte 3: expected a `,`, found 'x'");
    expect(unexpectedByte({ byte: 0xbb, offset: 1, expected: 'a `[`' }).message).toContain(
      'found 0xbb',
    );
  });
});
