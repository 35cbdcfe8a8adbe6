import { describe, expect, it } from 'vitest';
import { JsonObjectSplitter } from './json-object-splitter.js';
import { RecordTooLargeError } from './stream-errors.js';
import { caught, feedText, streamErrorAt } from './test-helpers/json-splitter.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Each member and element as [kind, key, JSON text], the input fed `size` bytes at a time. */
function split(text: string, size = 1, maxRecordBytes?: number): Array<[string, string, string]> {
  const splitter = new JsonObjectSplitter({ streamKeys: ['events'], maxRecordBytes });
  return feedText({ text, size, splitter }).flatMap((part): Array<[string, string, string]> => {
    if (part.kind === 'array') return [];
    return part.kind === 'member'
      ? [['member', part.key, decoder.decode(part.value)]]
      : [[`element ${part.index}`, part.key, decoder.decode(part.bytes)]];
  });
}

describe('JsonObjectSplitter', () => {
  const session = {
    id: 's-1',
    'we"ird\\key': { nested: ['[', '{'] },
    events: [
      { id: 'e1', content: { parts: [{ text: 'brackets ] } and "quotes"' }] } },
      { id: 'e2', actions: { stateDelta: { a: [1, [2]] } } },
    ],
    state: { count: 2 },
    lastUpdateTime: 1.5,
    empty: [],
  };

  it.each([1, 3, 16, 10_000])(
    'streams the events and holds the other members, %i bytes at a time',
    (size) => {
      const parts = split(JSON.stringify(session, null, 2), size);
      expect(parts.map(([kind, key]) => `${kind}:${key}`)).toEqual([
        'member:id',
        'member:we"ird\\key',
        'element 0:events',
        'element 1:events',
        'member:state',
        'member:lastUpdateTime',
        'member:empty',
      ]);
      expect(JSON.parse(parts[2]?.[2] as string)).toEqual(session.events[0]);
      expect(JSON.parse(parts[3]?.[2] as string)).toEqual(session.events[1]);
      expect(JSON.parse(parts[4]?.[2] as string)).toEqual(session.state);
    },
  );

  it('reads an empty object, an empty events array and a byte-order mark', () => {
    expect(split('\uFEFF {} ')).toEqual([]);
    expect(split('{"events":[],"id":"x"}')).toEqual([['member', 'id', '"x"']]);
  });

  it('marks where a streamed array starts, also an empty one', () => {
    const splitter = new JsonObjectSplitter({ streamKeys: ['events', 'history'] });
    const parts = splitter.push(encoder.encode('{"events": [], "history": [1]}'));
    splitter.end();
    expect(parts.map((part) => `${part.kind}:${part.key}:${part.offset}`)).toEqual([
      'array:events:11',
      'array:history:26',
      'element:history:27',
    ]);
  });

  it('holds an events member that is not an array as a member', () => {
    expect(split('{"events":{"a":1}}')).toEqual([['member', 'events', '{"a":1}']]);
  });

  it.each([
    ['{"id":"x","events":[{"a":1}', 27],
    ['{"id":"x"', 9],
    ['{"id', 4],
    ['', 0],
  ])('refuses truncated input %j naming the byte offset %i', (text, offset) => {
    streamErrorAt(() => split(text), offset);
  });

  it.each([
    ['[1]', 0],
    ['{"a" 1}', 5],
    ['{"a":1 "b":2}', 7],
    ['{"a":1} x', 8],
    ['{a:1}', 1],
  ])('refuses %j naming the byte offset %i', (text, offset) => {
    streamErrorAt(() => split(text), offset);
  });

  it('refuses an event or a member over maxRecordBytes', () => {
    const big = 'x'.repeat(100);
    const inEvents = caught(() => split(`{"events":[{"t":"${big}"}]}`, 7, 50));
    expect(RecordTooLargeError.isInstance(inEvents)).toBe(true);
    expect(inEvents).toMatchObject({ element: 0, offset: 11 });
    const member = caught(() => split(`{"state":{"t":"${big}"}}`, 7, 50));
    expect(RecordTooLargeError.isInstance(member)).toBe(true);
    expect(member).toMatchObject({ offset: 9 });
  });
});
