import { describe, expect, it } from 'vitest';
import { ELISION_PLACEHOLDER_PREFIX } from '../../compaction/elision.js';
import type { CompactionEvent, Event } from '../../events/types.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { elisionRuleEvent } from '../shared/test-helpers/elision-rule.js';
import { viewToAdkEvents } from './adk-events.js';

/** An event as a store holds it (`seq` given). */
function stored<T extends object>(event: T, seq: number): T & { seq: number } {
  return { ...event, seq };
}

describe('viewToAdkEvents', () => {
  it('ends the summary before every tail event, even one written with an earlier clock', () => {
    // The summary covers seq 1..2, last written at 10.000 s; the tail (seq 3, 4) shares that
    // millisecond, and seq 4 carries an earlier time (another writer's clock).
    const checkpoint = stored(
      compactionEvent({ startSeq: 1, endSeq: 2, startTimestamp: 9, endTimestamp: 10 }),
      5,
    ) as CompactionEvent;
    const tail: Event[] = [
      stored(userTextEvent({ text: 'same millisecond', timestamp: 10 }), 3),
      stored(userTextEvent({ text: 'earlier clock', timestamp: 9.5 }), 4),
    ];
    const [summary, ...events] = viewToAdkEvents({ checkpoint, tail, lastSeq: 5 }) as Array<{
      endTime?: number;
      timestamp: number;
    }>;
    expect(events.map((event) => event.timestamp)).toEqual([10_000, 9_500]);
    // ADK-JS's getActiveEvents keeps only events strictly after endTime: all of the tail.
    expect(summary?.endTime).toBe(9_499);
    expect(events.every((event) => event.timestamp > summary!.endTime!)).toBe(true);
  });

  it('keeps the summary end when the tail is later, and the tail alone without a summary', () => {
    const checkpoint = stored(
      compactionEvent({ startSeq: 1, endSeq: 1, startTimestamp: 1, endTimestamp: 2 }),
      3,
    ) as CompactionEvent;
    const tail: Event[] = [stored(userTextEvent({ text: 'later', timestamp: 3 }), 2)];
    const [summary] = viewToAdkEvents({ checkpoint, tail, lastSeq: 3 }) as Array<{
      endTime?: number;
    }>;
    expect(summary?.endTime).toBe(2_000);
    expect(viewToAdkEvents({ tail, lastSeq: 2 })).toHaveLength(1);
  });
});

describe('viewToAdkEvents under an elision rule', () => {
  it('shows the placeholders and leaves the rule out (ADK-JS knows no such event)', () => {
    const whole = 'z'.repeat(4000);
    const rule = elisionRuleEvent({ seq: 4, throughSeq: 3 });
    const tail: Event[] = [
      stored(userTextEvent({ text: 'read it', timestamp: 1 }), 1),
      stored(functionCallEvent({ calls: [{ id: 'a', name: 'read' }], timestamp: 2 }), 2),
      stored(
        functionResponseEvent({
          responses: [{ id: 'a', name: 'read', response: { text: whole } }],
          timestamp: 3,
        }),
        3,
      ),
      rule,
    ];
    const events = viewToAdkEvents({ tail, lastSeq: 4 });
    expect(events).toHaveLength(3);
    const json = JSON.stringify(events);
    expect(json).toContain(ELISION_PLACEHOLDER_PREFIX);
    expect(json).not.toContain(whole);
    expect(json).not.toContain('"elision"');
  });
});
