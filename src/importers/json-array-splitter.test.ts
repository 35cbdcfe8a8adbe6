import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, splitJsonArray } from './json-array-splitter.js';
import { RecordTooLargeError } from './stream-errors.js';
import { caught, feedText, streamErrorAt } from './test-helpers/json-splitter.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Every element's text, the input fed `size` bytes at a time. */
function split(text: string, size = 1, maxRecordBytes?: number): string[] {
  const splitter = new JsonArraySplitter({ maxRecordBytes });
  return feedText({ text, size, splitter }).map((element) => decoder.decode(element.bytes));
}

describe('JsonArraySplitter', () => {
  const document = [
    { text: 'brackets ] [ } { and a comma, inside a string' },
    { text: 'escaped quote \\" and backslash \\\\', nested: [[1, [2]], { a: [] }] },
    'a "string" element',
    42,
    -1.5e3,
    true,
    null,
    [],
    {},
    { unicode: 'héllo ✓ 😀' },
  ];

  it.each([1, 2, 7, 1000])('splits elements fed %i bytes at a time', (size) => {
    const elements = split(JSON.stringify(document, null, 2), size);
    expect(elements.map((element) => JSON.parse(element))).toEqual(document);
  });

  it('allows whitespace everywhere between tokens, and a byte-order mark', () => {
    expect(split('\uFEFF \n [ 1 ,\t"a" \r\n, [ ] ] \n')).toEqual(['1', '"a"', '[ ]']);
  });

  it('reads an empty array', () => {
    expect(split('[]')).toEqual([]);
    expect(split(' [ \n ] ')).toEqual([]);
  });

  it('names the element index and offset of each element', () => {
    const splitter = new JsonArraySplitter();
    const elements = splitter.push(encoder.encode('[ {"a":1}, 22 ]'));
    splitter.end();
    expect(elements.map(({ index, offset }) => ({ index, offset }))).toEqual([
      { index: 0, offset: 2 },
      { index: 1, offset: 11 },
    ]);
  });

  it.each([
    ['[{"a":1}', 8],
    ['[{"a":"unfinished', 17],
    ['[1,', 3],
    ['', 0],
    ['  ', 2],
  ])('refuses truncated input %j naming the byte offset %i', (text, offset) => {
    const error = streamErrorAt(() => split(text), offset);
    expect(error.message).toContain(`byte ${offset}`);
    expect(error.message).toContain('truncated');
  });

  it.each([
    ['{"not":"an array"}', 0],
    ['[1 2]', 3],
    ['[1,,2]', 3],
    ['[1,]', 3],
    ['[1] x', 4],
  ])('refuses %j naming the byte offset %i', (text, offset) => {
    streamErrorAt(() => split(text), offset);
  });

  it('refuses an element over maxRecordBytes, naming its index and offset', () => {
    const error = caught(() => split(`[1, "${'x'.repeat(100)}", 3]`, 8, 50));
    expect(RecordTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ element: 1, offset: 4, maxRecordBytes: 50 });
    expect((error as Error).message).toContain('array element 1');
  });
});

describe('splitJsonArray', () => {
  it('streams the elements of an async source', async () => {
    async function* source() {
      yield encoder.encode('[{"a":');
      yield encoder.encode('1},{"b":[2]}]');
    }
    const texts: string[] = [];
    for await (const element of splitJsonArray({ source: source() })) {
      texts.push(decoder.decode(element.bytes));
    }
    expect(texts).toEqual(['{"a":1}', '{"b":[2]}']);
  });
});
