import { describe, expect, it } from 'vitest';
import { InvalidEventError } from './errors.js';
import { parseEvent, parseEvents, parseNewEvent } from './schema.js';
import type { Event } from './types.js';

function textEvent(seq: number, text = `message ${seq}`): Event {
  return {
    id: `e${seq}`,
    invocationId: 'inv-1',
    author: 'user',
    timestamp: 1_700_000_000 + seq,
    content: { role: 'user', parts: [{ text }] },
    actions: {},
    seq,
  };
}

function compactionEvent(seq: number, startSeq: number, endSeq: number): Event {
  return {
    id: `c${seq}`,
    invocationId: 'inv-c',
    author: 'user',
    timestamp: 1_700_000_000 + seq,
    actions: {
      compaction: {
        startSeq,
        endSeq,
        startTimestamp: 1_700_000_000 + startSeq,
        endTimestamp: 1_700_000_000 + endSeq,
        compactedContent: { role: 'model', parts: [{ text: 'summary' }] },
        trigger: 'token_threshold',
        tokensBefore: 1200,
        tokensAfter: 300,
        summarizer: 'google:gemini-flash-latest',
      },
    },
    seq,
  };
}

function catchError(run: () => unknown): InvalidEventError {
  try {
    run();
  } catch (error) {
    if (InvalidEventError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidEventError');
}

describe('parseEvent', () => {
  it('accepts every part kind, usage, actions and keeps unknown action keys', () => {
    const event: Event = {
      id: 'e1',
      invocationId: 'inv-1',
      author: 'agent',
      timestamp: 1_700_000_000.25,
      branch: 'root.agent',
      content: {
        role: 'model',
        parts: [
          { text: 'thinking', thought: true, thoughtSignature: 'c2ln' },
          { text: 'answer' },
          {
            functionCall: { id: 'call-1', name: 'search', args: { q: 'x' } },
            thoughtSignature: 'c2ln',
          },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } },
        ],
      },
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      actions: {
        stateDelta: { 'user:name': 'Ada' },
        requestedToolConfirmations: { 'call-1': { hint: 'ok?', confirmed: false } },
        endOfAgent: true,
      },
      longRunningToolIds: ['call-1'],
      customMetadata: { source: 'test' },
      seq: 4,
    };
    expect(parseEvent(event)).toEqual(event);
  });

  it('accepts a valid compaction event', () => {
    expect(parseEvent(compactionEvent(10, 1, 9)).actions.compaction?.endSeq).toBe(9);
  });

  it('names the part that holds two kinds', () => {
    const event = textEvent(1);
    event.content!.parts = [
      { text: 'fine' },
      { text: 'x', functionCall: { id: 'c', name: 'n', args: {} } },
    ];
    const error = catchError(() => parseEvent(event, { path: 'events[12]' }));
    expect(error.path).toBe('events[12].content.parts[1]');
    expect(error.message).toContain('exactly one of');
    expect(error.message).toContain('text and functionCall');
    expect(error.value).toEqual(event.content!.parts[1]);
  });

  it('names an empty part', () => {
    const event = textEvent(1);
    event.content!.parts = [{}];
    const error = catchError(() => parseEvent(event, { path: 'events[12]' }));
    expect(error.path).toBe('events[12].content.parts[0]');
    expect(error.message).toContain('got {}');
  });

  it('rejects a thought flag on a function call', () => {
    const event = textEvent(1);
    event.content!.parts = [{ functionCall: { id: 'c', name: 'n', args: {} }, thought: true }];
    expect(catchError(() => parseEvent(event)).path).toBe('event.content.parts[0].thought');
  });

  it('names a missing function call name', () => {
    const event = textEvent(1);
    event.content = {
      role: 'model',
      parts: [{ functionCall: { id: 'c', args: {} } as never }],
    };
    const error = catchError(() => parseEvent(event));
    expect(error.path).toBe('event.content.parts[0].functionCall.name');
    expect(error.message).toContain('got undefined');
  });

  it('rejects a non-positive or fractional seq', () => {
    expect(catchError(() => parseEvent({ ...textEvent(1), seq: 0 })).path).toBe('event.seq');
    const error = catchError(() => parseEvent({ ...textEvent(1), seq: 1.5 }));
    expect(error.path).toBe('event.seq');
    expect(error.value).toBe(1.5);
  });

  it('rejects a bad role with the value in the message', () => {
    const event = { ...textEvent(1), content: { role: 'assistant', parts: [{ text: 'x' }] } };
    const error = catchError(() => parseEvent(event));
    expect(error.path).toBe('event.content.role');
    expect(error.message).toContain('"assistant"');
  });

  it('rejects negative usage counts', () => {
    const event = { ...textEvent(1), usageMetadata: { promptTokenCount: -1 } };
    expect(catchError(() => parseEvent(event)).path).toBe('event.usageMetadata.promptTokenCount');
  });

  it('rejects a compaction with content', () => {
    const event = {
      ...compactionEvent(5, 1, 4),
      content: { role: 'user', parts: [{ text: 'x' }] },
    };
    expect(catchError(() => parseEvent(event)).path).toBe('event.content');
  });

  it('rejects a compaction with startSeq > endSeq', () => {
    const error = catchError(() => parseEvent(compactionEvent(9, 5, 3)));
    expect(error.path).toBe('event.actions.compaction.startSeq');
    expect(error.value).toBe(5);
  });

  it('rejects a compaction that covers itself or later events', () => {
    const error = catchError(() => parseEvent(compactionEvent(5, 1, 5)));
    expect(error.path).toBe('event.actions.compaction.endSeq');
  });

  it('rejects an unknown compaction trigger', () => {
    const event = compactionEvent(5, 1, 4);
    (event.actions.compaction as unknown as Record<string, unknown>).trigger = 'cron';
    expect(catchError(() => parseEvent(event)).path).toBe('event.actions.compaction.trigger');
  });

  it('names a bad state delta key with bracket notation', () => {
    const event = { ...textEvent(1), actions: { artifactDelta: { 'report v2.txt': 'one' } } };
    expect(catchError(() => parseEvent(event)).path).toBe(
      'event.actions.artifactDelta["report v2.txt"]',
    );
  });

  it('rejects a non-object input', () => {
    const error = catchError(() => parseEvent('hello'));
    expect(error.path).toBe('event');
    expect(error.value).toBe('hello');
  });
});

describe('parseNewEvent', () => {
  it('accepts an event without seq and requires the base fields', () => {
    const { seq: _seq, ...fresh } = textEvent(1);
    expect(parseNewEvent(fresh)).toEqual(fresh);
    const { actions: _actions, ...withoutActions } = fresh;
    expect(catchError(() => parseNewEvent(withoutActions)).path).toBe('event.actions');
  });
});

describe('parseEvents', () => {
  it('accepts a session history', () => {
    const events = [textEvent(1), textEvent(2), compactionEvent(3, 1, 2), textEvent(5)];
    expect(parseEvents(events)).toEqual(events);
  });

  it('names the index of the bad event', () => {
    const events = Array.from({ length: 14 }, (_, index) => textEvent(index + 1));
    events[12]!.content!.parts[0] = { text: 'a', inlineData: { mimeType: 'a/b', data: '' } };
    const error = catchError(() => parseEvents(events));
    expect(error.path).toBe('events[12].content.parts[0]');
    expect(error.message).toMatch(/^events\[12\]\.content\.parts\[0\]: /);
  });

  it('rejects a seq that does not strictly increase', () => {
    const error = catchError(() => parseEvents([textEvent(1), textEvent(3), textEvent(3)]));
    expect(error.path).toBe('events[2].seq');
    expect(error.value).toBe(3);
  });

  it('rejects a non-array', () => {
    expect(catchError(() => parseEvents({ events: [] })).path).toBe('events');
  });
});
