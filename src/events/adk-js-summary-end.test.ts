import { describe, expect, it } from 'vitest';
import { compactionEvent, modelTextEvent, userTextEvent } from '../testing/event-builders.js';
import { adkJsSummaryEnd } from './adk-js-summary-end.js';
import { AdkEventReader, fromAdkSessionJson, toAdkSessionJson } from './adk-json.js';
import type { NewEvent } from './types.js';

describe('adkJsSummaryEnd', () => {
  it('stays below the earliest later time when one is not strictly after the end', () => {
    expect(adkJsSummaryEnd({ endTime: 5_000, laterTimestamps: [5_000, 5_001] })).toBe(4_999);
    expect(adkJsSummaryEnd({ endTime: 5_000, laterTimestamps: [5_002, 4_200] })).toBe(4_199);
  });

  it('keeps the end when every later time is after it, or there is none', () => {
    expect(adkJsSummaryEnd({ endTime: 5_000, laterTimestamps: [5_001, 9_000] })).toBe(5_000);
    expect(adkJsSummaryEnd({ endTime: 5_000, laterTimestamps: [] })).toBe(5_000);
    expect(adkJsSummaryEnd({ endTime: 5_000, laterTimestamps: ['2026-01-01T00:00:00Z'] })).toBe(
      5_000,
    );
  });
});

/** 2026-01-01T00:00:00Z in epoch seconds. */
const T = Date.UTC(2026, 0, 1) / 1000;

/**
 * Events as a caller hands them (no `seq`: numbered by position). Two compactions: 1-2 and 1-4;
 * every event after the first summarized one shares its millisecond.
 */
function events(): NewEvent[] {
  return [
    userTextEvent({ text: 'q1', timestamp: T }),
    modelTextEvent({ text: 'a1', timestamp: T + 0.001 }),
    userTextEvent({ text: 'q2', timestamp: T + 0.001 }),
    modelTextEvent({ text: 'a2', timestamp: T + 0.001 }),
    compactionEvent({
      startSeq: 1,
      endSeq: 2,
      startTimestamp: T,
      endTimestamp: T + 0.001,
      timestamp: T + 0.002,
    }),
    userTextEvent({ text: 'q3', timestamp: T + 0.001 }),
    compactionEvent({
      startSeq: 1,
      endSeq: 4,
      startTimestamp: T,
      endTimestamp: T + 0.001,
      timestamp: T + 0.003,
    }),
  ];
}

describe('toAdkSessionJson in ADK-JS form, events sharing the summary end millisecond', () => {
  for (const casing of ['camel', 'snake'] as const) {
    it(`ends each summary before the events after its range, read back exactly (${casing})`, () => {
      const original = events();
      const exported = toAdkSessionJson({
        session: { sessionId: 's' },
        events: original,
        dialect: 'adk-js',
        timestampUnit: 'milliseconds',
        casing,
      }) as { events: Array<Record<string, unknown>> };
      const endKey = casing === 'camel' ? 'endTime' : 'end_time';
      const ends = [4, 6].map((index) => exported.events[index]?.[endKey]);
      const shared = Math.round((T + 0.001) * 1000);
      // The first is followed by q2, a2 (covered by the second) and q3; the second by q3.
      expect(ends).toEqual([shared - 1, shared - 1]);
      const imported = fromAdkSessionJson(exported).events;
      for (const index of [4, 6]) {
        expect(imported[index]?.actions.compaction?.endTimestamp).toBe(T + 0.001);
      }
      expect(imported[6]?.actions.compaction).toMatchObject({ startSeq: 1, endSeq: 4 });
      // Streamed, event by event, the same.
      const reader = new AdkEventReader();
      expect(exported.events.map((event, index) => reader.add(event, index))).toEqual(imported);
      // Written again from what was read: the same ends, the same orrery fields.
      const again = toAdkSessionJson({
        session: { sessionId: 's' },
        events: imported,
        dialect: 'adk-js',
        timestampUnit: 'milliseconds',
        casing,
      }) as typeof exported;
      expect([4, 6].map((index) => again.events[index]?.[endKey])).toEqual(ends);
    });
  }

  it('leaves ADK for Python form as it was: its ranges are read by seq from orrery metadata', () => {
    const exported = toAdkSessionJson({ session: { sessionId: 's' }, events: events() }) as {
      events: Array<{ actions: { compaction?: { endTimestamp: number } } }>;
    };
    expect(exported.events[6]?.actions.compaction?.endTimestamp).toBe(T + 0.001);
  });
});
