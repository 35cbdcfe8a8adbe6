/**
 * `TailFacts`: the elision rule and the completed-invocation count it keeps per view equal the
 * full scans (`latestElision`, `countCompletedInvocations`) after appends, an elision rule, an
 * invalid one, a compaction, a branch switch under the same key and a recreated session, and
 * plain appends read only the appended events.
 */
import { expect, it } from 'vitest';
import type { Event } from '../events/types.js';
import { latestElision } from './elision.js';
import { TailFacts } from './tail-facts.js';
import { countCompletedInvocations } from './triggers.js';

let nextSeq = 1;

function event(invocationId: string, extra: Partial<Event> = {}): Event {
  const seq = nextSeq++;
  return {
    id: `event-${seq}`,
    invocationId,
    author: 'user',
    timestamp: seq,
    seq,
    actions: {},
    content: { role: 'user', parts: [{ text: `${seq}` }] },
    ...extra,
  } as Event;
}

const rule = (throughSeq: number, invocationId = 'rule') =>
  event(invocationId, {
    content: undefined,
    actions: {
      elision: {
        throughSeq,
        minOutputBytes: 10,
        trigger: 'token_threshold',
        tokensBefore: 1,
        tokensAfter: 1,
      },
    },
  });

it('equals the full scans after appends, rules, a compaction, a switch and a rebuild', () => {
  const facts = new TailFacts();
  const check = (events: Event[], viewKey = 'session') => {
    expect(facts.latestElision({ viewKey, events })).toBe(latestElision(events));
    for (const current of [undefined, 'turn-1', 'turn-2', 'missing']) {
      expect(facts.completedInvocations({ viewKey, events, currentInvocationId: current })).toBe(
        countCompletedInvocations({ tail: events, currentInvocationId: current }),
      );
    }
  };
  const tail: Event[] = [];
  check(tail);
  for (let turn = 1; turn <= 4; turn++) {
    tail.push(event(`turn-${turn}`), event(`turn-${turn}`));
    check(tail);
  }
  // An event without an invocation id (legacy data): skipped by the full count when none runs.
  tail.push(event(undefined as unknown as string));
  check(tail);
  tail.push(rule(3));
  check(tail);
  // An invalid rule (throughSeq past its own seq) is never the one in force.
  tail.push(rule(nextSeq + 5, 'bad'));
  check(tail);
  tail.push(event('turn-5'), rule(6, 'later'));
  check(tail);
  // A compaction: the store's tail now starts after its range (a new first event).
  const compacted = tail.slice(4);
  check(compacted);
  compacted.push(event('turn-6'));
  check(compacted);
  // A branch switch under the same key: another sequence, scanned whole.
  const branch = [event('branch-1'), event('branch-2')];
  check(branch);
  check(compacted);
  // The same length, a different last event (a recreated session): scanned whole.
  const recreated = [...compacted.slice(0, -1), event('turn-7')];
  check(recreated);
  // Keys are independent.
  check(branch, 'other');
  check(recreated);
});

it('reads only the appended events when the tail extends the remembered one', () => {
  const facts = new TailFacts();
  let reads = 0;
  const counted = (invocationId: string): Event => {
    const base = event(invocationId);
    return {
      ...base,
      get actions() {
        reads++;
        return base.actions;
      },
    };
  };
  const tail = [counted('a'), counted('b')];
  expect(facts.completedInvocations({ viewKey: 'session', events: tail })).toBe(2);
  const first = reads;
  tail.push(counted('c'));
  expect(facts.completedInvocations({ viewKey: 'session', events: tail })).toBe(3);
  expect(facts.latestElision({ viewKey: 'session', events: tail })).toBeUndefined();
  // One event read (its actions a few times), the two before it not again.
  expect(reads - first).toBeLessThanOrEqual(first / 2);
  expect(reads - first).toBeGreaterThan(0);
});
