import { describe, expect, it } from 'vitest';
import { toAdkSessionJson } from '../events/adk-json.js';
import type { NewEvent } from '../events/types.js';
import { compactionEvent, modelTextEvent, userTextEvent } from '../testing/event-builders.js';
import { importAdk } from './adk.js';
import { ImportError } from './errors.js';
import { importOpenAiChat } from './openai-chat.js';

describe('importAdk', () => {
  it('reads an ADK session back into the same events and state', () => {
    const source = importOpenAiChat(
      [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'f', content: 'ok' },
      ],
      { startTime: 100 },
    );
    for (const casing of ['camel', 'snake'] as const) {
      const json = JSON.stringify(
        toAdkSessionJson({
          session: { appName: 'a', userId: 'u', sessionId: 's', state: { k: 1 } },
          events: source.events,
          casing,
        }),
      );
      const result = importAdk(json);
      expect(result.meta).toMatchObject({ format: 'adk', sourceId: 's', state: { k: 1 } });
      expect(result.events).toEqual(source.events);
      expect(result.repairs).toEqual([]);
    }
  });

  it('reports a bad event as an ImportError naming the field', () => {
    const bad = JSON.stringify({
      id: 's',
      events: [{ id: 'e', author: 'user', invocationId: 'i', timestamp: 'soon', actions: {} }],
    });
    expect(() => importAdk(bad)).toThrow(ImportError);
    expect(() => importAdk(bad)).toThrow(/events\[0\]\.timestamp/);
  });

  it('renumbers compaction ranges when the exported seqs have gaps or start later', () => {
    // An export whose events are numbered 5, 6, 8, 9 (7 left out), then a compaction of 5-8.
    const stored: Array<NewEvent & { seq: number }> = [
      { ...userTextEvent({ text: 'first', timestamp: 1 }), seq: 5 },
      { ...modelTextEvent({ text: 'answer', timestamp: 2 }), seq: 6 },
      { ...userTextEvent({ text: 'second', timestamp: 3 }), seq: 8 },
      { ...modelTextEvent({ text: 'answer 2', timestamp: 4 }), seq: 9 },
      { ...compactionEvent({ startSeq: 5, endSeq: 8, timestamp: 5 }), seq: 10 },
      { ...userTextEvent({ text: 'kept', timestamp: 6 }), seq: 11 },
    ];
    const result = importAdk(JSON.stringify(toAdkSessionJson({ session: {}, events: stored })));
    const compaction = result.events[4]?.actions.compaction;
    expect([compaction?.startSeq, compaction?.endSeq]).toEqual([1, 3]);
    expect(result.repairs).toEqual([
      expect.objectContaining({ kind: 'compaction_range_renumbered', location: 'events[4]' }),
    ]);
    // Numbers that already match the positions are left alone and reported as nothing.
    const contiguous = stored.map((event, index) => ({ ...event, seq: index + 1 }));
    contiguous[4] = { ...compactionEvent({ startSeq: 1, endSeq: 3, timestamp: 5 }), seq: 5 };
    const same = importAdk(toAdkSessionJson({ session: {}, events: contiguous }));
    expect(same.events[4]?.actions.compaction).toMatchObject({ startSeq: 1, endSeq: 3 });
    expect(same.repairs).toEqual([]);
  });

  it('rejects a compaction whose range holds no earlier event, naming it', () => {
    const events: Array<NewEvent & { seq: number }> = [
      { ...userTextEvent({ text: 'a', timestamp: 1 }), seq: 1 },
      { ...userTextEvent({ text: 'b', timestamp: 2 }), seq: 4 },
      { ...compactionEvent({ startSeq: 2, endSeq: 3, timestamp: 3 }), seq: 5 },
    ];
    expect(() => importAdk(toAdkSessionJson({ session: {}, events }))).toThrow(
      /events\[2\]\.actions\.compaction: the compaction covers seq 2-3/,
    );
  });
});
