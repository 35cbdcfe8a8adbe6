/**
 * `StoredViewReader`: each read equals `storedViewOf` of the same events, through appends, a
 * rewind, an out-of-order seq, a compaction (a new first event), a non-rolling checkpoint and a
 * switch to another session's events under the same key; appends are read, not the prefix.
 */
import { expect, it } from 'vitest';
import type { CompactionEvent, Event } from '../../events/types.js';
import { StoredViewReader, storedViewOf } from './stored-view-of.js';

let nextSeq = 1;

function event(extra: Partial<Event> = {}): Event {
  const seq = nextSeq++;
  return {
    id: `event-${seq}`,
    invocationId: `turn-${seq}`,
    author: 'user',
    timestamp: seq,
    seq,
    actions: {},
    content: { role: 'user', parts: [{ text: `${seq}` }] },
    ...extra,
  } as Event;
}

function checkpoint(endSeq: number, rolling?: false): CompactionEvent {
  return event({
    content: undefined,
    actions: {
      compaction: {
        startSeq: 1,
        endSeq,
        ...(rolling === false && { rolling }),
        startTimestamp: 1,
        endTimestamp: 2,
        compactedContent: { role: 'model', parts: [{ text: 'summary' }] },
        trigger: 'token_threshold',
        tokensBefore: 1,
        tokensAfter: 1,
        summarizer: 'test',
      },
    },
  }) as CompactionEvent;
}

it('equals storedViewOf after appends, a rewind, a compaction and a switch', () => {
  const reader = new StoredViewReader();
  const check = (events: Event[], viewKey = 'session') => {
    const expected = storedViewOf(events);
    expect(reader.read({ viewKey, events })).toEqual(expected);
    return expected;
  };
  check([]);
  const events: Event[] = [];
  for (let index = 0; index < 5; index++) {
    events.push(event());
    expect(check(events)).toBeDefined();
  }
  // A compaction: the view now starts with its checkpoint (a new first event).
  const compacted = [checkpoint(events.at(-1)!.seq), event(), event()];
  expect(check(compacted)?.checkpoint).toBe(compacted[0]);
  compacted.push(event());
  expect(check(compacted)?.lastSeq).toBe(compacted.at(-1)!.seq);
  // A rewind in the tail: undefined from then on, whatever is appended.
  compacted.push(event({ actions: { rewindBeforeInvocationId: 'turn-3' } }));
  expect(check(compacted)).toBeUndefined();
  compacted.push(event());
  expect(check(compacted)).toBeUndefined();
  // Another sequence under the same key, then one with a seq out of order.
  const other = [event(), event()];
  expect(check(other)).toBeDefined();
  other.push({ ...event(), seq: 1 });
  expect(check(other)).toBeUndefined();
  // A non-rolling checkpoint (an imported ADK summary of its own window only).
  const window = [checkpoint(3, false), event()];
  expect(check(window)).toBeUndefined();
  // A compaction inside the tail.
  const inside = [event(), checkpoint(1), event()];
  expect(check(inside)).toBeUndefined();
  // Independent keys.
  expect(check(events, 'other')).toBeDefined();
});

it('reads only the appended events of a sequence it read before', () => {
  const reader = new StoredViewReader();
  let reads = 0;
  const counted = (): Event => {
    const base = event();
    return {
      ...base,
      get actions() {
        reads++;
        return base.actions;
      },
    };
  };
  const events = [counted(), counted(), counted(), counted()];
  reader.read({ viewKey: 'session', events });
  const first = reads;
  events.push(counted());
  expect(reader.read({ viewKey: 'session', events })).toEqual(storedViewOf(events));
  const afterAppend = reads;
  events.push(counted());
  reader.read({ viewKey: 'session', events });
  // One event read per append (its actions a few times), the four before not again.
  expect(reads - afterAppend).toBeLessThan(first);
  expect(reads - afterAppend).toBeGreaterThan(0);
});
