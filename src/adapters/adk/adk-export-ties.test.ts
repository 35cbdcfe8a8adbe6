/** An orrery export loaded by ADK-JS's own session service and Runner keeps every retained event. */
import {
  InMemorySessionService as AdkInMemorySessionService,
  FunctionTool,
  LlmAgent,
  Runner,
} from '@google/adk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAdkSessionJson, toAdkSessionJson } from '../../events/adk-json.js';
import type { Event, NewEvent } from '../../events/types.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../../testing/event-builders.js';
import { StubLlm } from './test-helpers/stub-llm.js';

const key = { appName: 'adk-app', userId: 'user-1', sessionId: 'session-1' };
/** 2026-01-01T00:00:00Z, in orrery's epoch seconds. */
const T = Date.UTC(2026, 0, 1) / 1000;

function stored(event: NewEvent, seq: number): Event {
  return { ...event, seq } as Event;
}

/**
 * q1..a2 summarized (seq 1-4); the retained q3 (seq 5) shares a2's millisecond, and a3 (seq 6)
 * comes `a3Offset` seconds after q1 (below a2's: another writer's earlier clock).
 */
function history(a3Offset = 0.004): Event[] {
  return [
    stored(userTextEvent({ text: 'q1', timestamp: T }), 1),
    stored(modelTextEvent({ author: 'assistant', text: 'a1', timestamp: T + 0.001 }), 2),
    stored(userTextEvent({ text: 'q2', timestamp: T + 0.002 }), 3),
    stored(modelTextEvent({ author: 'assistant', text: 'a2', timestamp: T + 0.003 }), 4),
    stored(userTextEvent({ text: 'q3', timestamp: T + 0.003 }), 5),
    stored(modelTextEvent({ author: 'assistant', text: 'a3', timestamp: T + a3Offset }), 6),
    stored(
      compactionEvent({
        startSeq: 1,
        endSeq: 4,
        text: 'SUMMARY of q1..a2',
        startTimestamp: T,
        endTimestamp: T + 0.003,
        timestamp: T + 0.004,
      }),
      7,
    ),
  ];
}

function exportJs(events: Event[]): Record<string, unknown> & { events: unknown[] } {
  return toAdkSessionJson({
    session: { ...key, state: {} },
    events,
    dialect: 'adk-js',
    timestampUnit: 'milliseconds',
  }) as Record<string, unknown> & { events: unknown[] };
}

/** `customMetadata.orrery.compaction` of the exported compaction (position 6). */
function orreryCompaction(exported: { events: unknown[] }): Record<string, unknown> {
  const event = exported.events[6] as {
    customMetadata: { orrery: { compaction: Record<string, unknown> } };
  };
  return event.customMetadata.orrery.compaction;
}

async function firstRequest(exported: { events: unknown[] }) {
  const service = new AdkInMemorySessionService();
  const session = await service.createSession({ ...key });
  for (const event of exported.events as never[]) await service.appendEvent({ session, event });
  const model = new StubLlm();
  const agent = new LlmAgent({
    name: 'assistant',
    model,
    tools: [
      new FunctionTool({
        name: 'lookup',
        description: 'Looks a question up.',
        parameters: z.object({ question: z.string() }),
        execute: async ({ question }: { question: string }) => ({ result: question }),
      }),
    ],
  });
  const runner = new Runner({ appName: key.appName, agent, sessionService: service });
  for await (const _event of runner.runAsync({
    userId: key.userId,
    sessionId: key.sessionId,
    newMessage: { role: 'user', parts: [{ text: 'q4' }] },
  })) {
    // Stored by ADK-JS's session service.
  }
  return model.requests[0] ?? [];
}

describe('an ADK-JS export whose retained events share the summary end millisecond', () => {
  it("keeps every retained event in ADK-JS's view (getActiveEvents, through its Runner)", async () => {
    const exported = exportJs(history());
    const texts = (await firstRequest(exported)).map((content) => content.parts?.[0]?.text);
    // ADK-JS decides by time: a2, in q3's millisecond, comes back after the summary (repeated,
    // where q3 would otherwise be lost).
    const summary = '[Previous Context Summary]:\nSUMMARY of q1..a2';
    expect(texts).toEqual([summary, 'a2', 'q3', 'a3', 'q4']);
    const written = exported.events[6] as { endTime: number };
    expect(written.endTime).toBe(Math.round((T + 0.003) * 1000) - 1);
  });

  it('keeps a retained event written with an earlier clock, and an unclamped end alone', async () => {
    const exported = exportJs(history(0.0015));
    const texts = (await firstRequest(exported)).map((content) => content.parts?.[0]?.text);
    expect(texts.slice(-3)).toEqual(['q3', 'a3', 'q4']);
    // 1 ms below a3's (earlier) clock: every retained event is strictly after it.
    expect((exported.events[6] as { endTime: number }).endTime).toBe(
      Math.round((T + 0.0015) * 1000) - 1,
    );
    // Every retained event later than the summarized ones: `endTime` is a2's, as before.
    const later = history().map((event) =>
      event.seq === 5 ? { ...event, timestamp: T + 0.0035 } : event,
    );
    const plain = exportJs(later);
    expect((plain.events[6] as { endTime: number }).endTime).toBe(Math.round((T + 0.003) * 1000));
    // orrery keeps the written end only when it was moved.
    expect(orreryCompaction(plain)).not.toHaveProperty('endTime');
    expect(orreryCompaction(exported).endTime).toBe(Math.round((T + 0.003) * 1000));
    const plainTexts = (await firstRequest(plain)).map((content) => content.parts?.[0]?.text);
    expect(plainTexts.slice(1)).toEqual(['q3', 'a3', 'q4']);
  });

  it('reads back with the original range and timestamps (lossless round trip)', () => {
    const original = history();
    const again = fromAdkSessionJson(exportJs(original)).events;
    const compaction = again[6]?.actions.compaction;
    expect(compaction?.endTimestamp).toBe(T + 0.003);
    expect([compaction?.startSeq, compaction?.endSeq]).toEqual([1, 4]);
    // The same as exporting and reading back without the clamp: a later tail event.
    const later = original.map((event) =>
      event.seq === 5 ? { ...event, timestamp: T + 0.0035 } : event,
    );
    const unclamped = fromAdkSessionJson(exportJs(later)).events;
    expect(again[6]).toEqual(unclamped[6]);
    // Written again, ADK-JS reads the same end.
    const endTimes = [again, original].map(
      (events) => (exportJs(events as Event[]).events[6] as { endTime: number }).endTime,
    );
    expect(endTimes[0]).toBe(endTimes[1]);
  });
});
