import { describe, expect, it } from 'vitest';
import { activeView } from '../compaction/view.js';
import { parseNewEvent } from '../events/schema.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  HistoryBuilder,
  modelTextEvent,
  userTextEvent,
} from './event-builders.js';

describe('event builders', () => {
  it('build valid events with fresh ids and the given fields', () => {
    const first = userTextEvent({ text: 'hello' });
    const second = userTextEvent({ text: 'hello' });
    expect(first.id).not.toBe(second.id);
    expect(first.invocationId).not.toBe(second.invocationId);
    expect(first).toEqual(
      expect.objectContaining({
        author: 'user',
        actions: {},
        content: { role: 'user', parts: [{ text: 'hello' }] },
      }),
    );
    expect(first).not.toHaveProperty('text');
    const answer = modelTextEvent({
      text: 'hi',
      author: 'helper',
      invocationId: 'i1',
      branch: 'b',
    });
    expect(answer).toEqual(
      expect.objectContaining({
        author: 'helper',
        invocationId: 'i1',
        branch: 'b',
        content: { role: 'model', parts: [{ text: 'hi' }] },
      }),
    );
    for (const event of [first, answer]) expect(parseNewEvent(event)).toEqual(event);
  });

  it('build parallel calls and their responses, by id or in full', () => {
    const calls = functionCallEvent({
      calls: ['a', { id: 'b', name: 'read', args: { path: 'x' } }],
    });
    expect(calls.content).toEqual({
      role: 'model',
      parts: [
        { functionCall: { id: 'a', name: 'tool_a', args: {} } },
        { functionCall: { id: 'b', name: 'read', args: { path: 'x' } } },
      ],
    });
    expect(calls.author).toBe('agent');
    const responses = functionResponseEvent({
      responses: ['a', { id: 'b', name: 'read', response: { output: 'data' } }],
    });
    expect(responses.content).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'a', name: 'tool_a', response: { ok: 'a' } } },
        { functionResponse: { id: 'b', name: 'read', response: { output: 'data' } } },
      ],
    });
    expect(responses.author).toBe('agent');
    for (const event of [calls, responses]) expect(parseNewEvent(event)).toEqual(event);
  });

  it('build a compaction with no content, keeping other actions', () => {
    const event = compactionEvent({
      startSeq: 2,
      endSeq: 5,
      text: 'so far',
      trigger: 'overflow',
      tokensBefore: 900,
      actions: { stateDelta: { step: 1 } },
    });
    expect(event.content).toBeUndefined();
    expect(event.author).toBe('user');
    expect(event.actions).toEqual({
      stateDelta: { step: 1 },
      compaction: {
        startSeq: 2,
        endSeq: 5,
        startTimestamp: 0,
        endTimestamp: 0,
        compactedContent: { role: 'model', parts: [{ text: 'so far' }] },
        trigger: 'overflow',
        tokensBefore: 900,
        tokensAfter: 0,
        summarizer: 'test',
      },
    });
    expect(event).not.toHaveProperty('startSeq');
    expect(parseNewEvent(event)).toEqual(event);
  });
});

describe('HistoryBuilder', () => {
  it('numbers events as a store would, with predictable ids and timestamps', () => {
    const history = new HistoryBuilder({ startTimestamp: 50 });
    history.userText({ invocationId: 'i1', text: 'go' });
    history.functionCalls({ invocationId: 'i1', calls: ['a'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    const kept = history.modelText({ invocationId: 'i1', text: 'done', id: 'mine' });
    const summary = history.compaction({ startSeq: 1, endSeq: 3, text: 'S' });
    expect(history.events.map((event) => [event.seq, event.id, event.timestamp])).toEqual([
      [1, 'e1', 51],
      [2, 'e2', 52],
      [3, 'e3', 53],
      [4, 'mine', 54],
      [5, 'e5', 55],
    ]);
    expect(summary.actions.compaction.endSeq).toBe(3);
    expect(summary.invocationId).not.toBe('i1');
    expect(history.nextSeq).toBe(6);
    expect(activeView({ events: history.events }).events).toEqual([kept]);
  });

  it('appends any event and keeps it mutable', () => {
    const history = new HistoryBuilder();
    const event = history.append({ invocationId: 'i1', author: 'agent' });
    event.longRunningToolIds = ['job'];
    expect(history.events[0]).toEqual({
      id: 'e1',
      seq: 1,
      timestamp: 1001,
      invocationId: 'i1',
      author: 'agent',
      actions: {},
      longRunningToolIds: ['job'],
    });
  });
});
