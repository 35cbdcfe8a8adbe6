import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importAdk } from '../importers/adk.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { fromAdkSessionJson, toAdkSessionJson } from './adk-json.js';

type Json = Record<string, unknown> & { events: Array<Record<string, unknown>> };

/** A session ADK-JS 2.0's own Runner wrote, compacting twice with `TokenBasedContextCompactor`. */
function adkJsSession(): Json {
  const url = new URL('./fixtures/adk-js-session.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8'));
}

const key = { appName: 'app', userId: 'u', sessionId: 's' };

describe('ADK for TypeScript sessions', () => {
  it('imports its CompactedEvents as rolling compactions over everything up to endTime', () => {
    const original = adkJsSession();
    const imported = fromAdkSessionJson(original);
    const compactions = imported.events
      .map((event, index) => ({ event, position: index + 1 }))
      .filter(({ event }) => event.actions.compaction !== undefined);
    expect(compactions.map(({ position }) => position)).toEqual([10, 17]);
    const [first, second] = compactions.map(({ event }) => event.actions.compaction!);
    // The first covers events 1-5 (q0's turn, q1's message: endTime is q1's timestamp).
    expect([first?.startSeq, first?.endSeq, first?.rolling]).toEqual([1, 6, true]);
    expect(first?.compactedContent.parts).toEqual([{ text: 'SUMMARY 5' }]);
    expect(second?.startSeq).toBe(1);
    expect(second?.endSeq).toBe(13);
    expect(compactions[0]?.event.invocationId).toBe('');
    // Milliseconds became seconds.
    expect(imported.events[0]?.timestamp).toBe((original.events[0]?.timestamp as number) / 1000);
  });

  it('imports through importAdk and the model sees the newest summary and what follows', async () => {
    const result = importAdk(JSON.stringify(adkJsSession()));
    expect(result.repairs).toEqual([]);
    const service = new InMemorySessionService();
    await service.createSession(key);
    for (const event of result.events) {
      if (event.actions.compaction) {
        const { checkpoint } = await service.loadView(key);
        await service.appendCompaction({
          ...key,
          event,
          expectedCheckpointSeq: checkpoint?.seq ?? null,
        });
      } else await service.appendEvent({ ...key, event });
    }
    const view = await service.loadView(key);
    expect(view.checkpoint?.seq).toBe(17);
    expect(view.tail.map((event) => event.seq)).toEqual([14, 15, 16, 18]);
  });

  it('exports back in ADK-JS form: CompactedEvent fields, milliseconds everywhere', () => {
    const original = adkJsSession();
    const imported = fromAdkSessionJson(structuredClone(original));
    const lastSeconds = imported.events.at(-1)!.timestamp;
    const continued = {
      id: 'orrery-1',
      invocationId: 'e-orrery',
      author: 'user',
      timestamp: lastSeconds + 1.5,
      content: { role: 'user' as const, parts: [{ text: 'continued in orrery' }] },
      actions: {},
    };
    const exported = toAdkSessionJson({
      session: { sessionId: 's', appName: 'app', userId: 'u', state: {} },
      events: [...imported.events, continued],
    }) as Json;
    const compacted = exported.events[9]!;
    const written = original.events[9]!;
    for (const field of ['isCompacted', 'startTime', 'endTime', 'compactedContent', 'timestamp']) {
      expect(compacted[field]).toEqual(written[field]);
    }
    expect(compacted.actions).toEqual(written.actions);
    const last = exported.events.at(-1)!;
    expect(last.timestamp).toBe(Math.round((lastSeconds + 1.5) * 1000));
    const times = exported.events.map((event) => event.timestamp as number);
    expect(times).toEqual([...times].sort((left, right) => left - right));
    // Read again, the same compactions come back.
    const again = fromAdkSessionJson(exported);
    expect(again.events.filter((event) => event.actions.compaction).length).toBe(2);
    expect(again.events[16]?.actions.compaction?.endSeq).toBe(13);
  });

  it('writes ADK-JS form for orrery compactions when asked', () => {
    const exported = toAdkSessionJson({
      session: { sessionId: 's' },
      dialect: 'adk-js',
      timestampUnit: 'milliseconds',
      events: [
        {
          id: 'a',
          invocationId: 'i',
          author: 'user',
          timestamp: 1_700_000_000.25,
          content: { role: 'user', parts: [{ text: 'hi' }] },
          actions: {},
        },
        {
          id: 'c',
          invocationId: 'i',
          author: 'orrery',
          timestamp: 1_700_000_001,
          actions: {
            compaction: {
              startTimestamp: 1_700_000_000.25,
              endTimestamp: 1_700_000_000.25,
              compactedContent: { role: 'model', parts: [{ text: 'one' }, { text: 'two' }] },
              startSeq: 1,
              endSeq: 1,
              trigger: 'manual',
              tokensBefore: 9,
              tokensAfter: 2,
              summarizer: 'digest',
            },
          },
        },
      ],
    }) as Json;
    const compaction = exported.events[1]!;
    expect(compaction).toMatchObject({
      isCompacted: true,
      startTime: 1_700_000_000_250,
      endTime: 1_700_000_000_250,
      compactedContent: 'one\ntwo',
      timestamp: 1_700_000_001_000,
      actions: {},
    });
  });
});
