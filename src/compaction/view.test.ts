import { describe, expect, it } from 'vitest';
import type { CompactionEvent, Event, EventActions, Part } from '../events/types.js';
import {
  activeView,
  assembleView,
  CONTINUATION_TEXT,
  isValidCompaction,
  MISSING_RESULT_RESPONSE,
  SUMMARY_PREFIX,
  selectCheckpoint,
} from './view.js';

/** A tiny history builder: seq and timestamps grow with each append. */
class History {
  readonly events: Event[] = [];
  private seq = 0;

  add(event: Omit<Event, 'seq' | 'id' | 'timestamp' | 'actions'> & { actions?: EventActions }) {
    this.seq++;
    const stored: Event = {
      id: `e${this.seq}`,
      timestamp: 1000 + this.seq,
      seq: this.seq,
      actions: {},
      ...event,
    };
    this.events.push(stored);
    return stored;
  }
  user(invocationId: string, text: string) {
    return this.add({ invocationId, author: 'user', content: { role: 'user', parts: [{ text }] } });
  }
  model(invocationId: string, text: string) {
    return this.add({
      invocationId,
      author: 'agent',
      content: { role: 'model', parts: [{ text }] },
    });
  }
  calls(invocationId: string, ids: string[]) {
    const parts: Part[] = ids.map((id) => ({ functionCall: { id, name: `tool_${id}`, args: {} } }));
    return this.add({ invocationId, author: 'agent', content: { role: 'model', parts } });
  }
  responses(invocationId: string, ids: string[]) {
    const parts: Part[] = ids.map((id) => ({
      functionResponse: { id, name: `tool_${id}`, response: { ok: id } },
    }));
    return this.add({ invocationId, author: 'agent', content: { role: 'user', parts } });
  }
  compaction(startSeq: number, endSeq: number, text: string): CompactionEvent {
    return this.add({
      invocationId: `c${this.seq + 1}`,
      author: 'user',
      actions: {
        compaction: {
          startSeq,
          endSeq,
          startTimestamp: 0,
          endTimestamp: 0,
          compactedContent: { role: 'model', parts: [{ text }] },
          trigger: 'manual',
          tokensBefore: 0,
          tokensAfter: 0,
          summarizer: 'test',
        },
      },
    }) as CompactionEvent;
  }
}

function texts(view: { contents: { role: string; parts: Part[] }[] }) {
  return view.contents.map((content) => ({
    role: content.role,
    parts: content.parts.map(
      (part) =>
        part.text ??
        (part.functionCall ? `call:${part.functionCall.id}` : undefined) ??
        `response:${part.functionResponse?.id}`,
    ),
  }));
}

describe('checkpoint selection', () => {
  it('accepts only well-formed ranges (startSeq <= endSeq < seq)', () => {
    const history = new History();
    history.user('i1', 'hello');
    const good = history.compaction(1, 1, 'ok');
    const ahead = history.compaction(1, 5, 'covers itself');
    const inverted = history.compaction(2, 1, 'inverted');
    expect(isValidCompaction(good)).toBe(true);
    expect(isValidCompaction(ahead)).toBe(false);
    expect(isValidCompaction(inverted)).toBe(false);
    expect(isValidCompaction(history.events[0]!)).toBe(false);
  });

  it('picks the largest endSeq, then the later seq', () => {
    const history = new History();
    for (let index = 0; index < 4; index++) history.user('i1', `m${index}`);
    const wide = history.compaction(1, 3, 'wide');
    history.compaction(1, 2, 'narrow, later');
    expect(selectCheckpoint(history.events)?.id).toBe(wide.id);
    const tie = history.compaction(1, 3, 'same end, later');
    expect(selectCheckpoint(history.events)?.id).toBe(tie.id);
  });
});

describe('activeView', () => {
  it('puts the summary first as user text, then the tail after endSeq', () => {
    const history = new History();
    history.user('i1', 'first');
    history.model('i1', 'answer');
    history.compaction(1, 2, 'they said hi');
    history.user('i2', 'second');
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}they said hi`, 'second'] },
    ]);
    expect(view.events.map((event) => event.seq)).toEqual([4]);
  });

  it('keeps events appended before a late compaction visible when they are after its range', () => {
    const history = new History();
    history.user('i1', 'one'); // 1
    history.model('i1', 'two'); // 2
    history.user('i2', 'three'); // 3
    history.model('i2', 'four'); // 4
    history.compaction(1, 2, 'S'); // 5: computed earlier, appended late
    const view = activeView({ events: history.events });
    expect(view.events.map((event) => event.seq)).toEqual([3, 4]);
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}S`, 'three'] },
      { role: 'model', parts: ['four'] },
    ]);
  });

  it('decides by seq even when timestamps are equal or go backwards', () => {
    const history = new History();
    const first = history.user('i1', 'a');
    const second = history.model('i1', 'b');
    const third = history.user('i2', 'c');
    first.timestamp = 5;
    second.timestamp = 5;
    third.timestamp = 1;
    history.compaction(1, 2, 'S');
    expect(activeView({ events: history.events }).events.map((event) => event.seq)).toEqual([3]);
  });

  it('sorts an unsorted list by seq and merges adjacent same-role contents', () => {
    const history = new History();
    history.user('i1', 'a');
    history.user('i1', 'b');
    history.model('i1', 'c');
    history.model('i1', 'd');
    const view = activeView({ events: [...history.events].reverse() });
    expect(texts(view)).toEqual([
      { role: 'user', parts: ['a', 'b'] },
      { role: 'model', parts: ['c', 'd'] },
    ]);
  });

  it('opens with a user content when the tail starts with the model and there is no summary', () => {
    const history = new History();
    history.model('i1', 'hello from the model');
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [CONTINUATION_TEXT] },
      { role: 'model', parts: ['hello from the model'] },
    ]);
  });

  it('drops a response whose call is not in the view, with a warning', () => {
    const history = new History();
    history.calls('i1', ['a']); // 1
    history.compaction(1, 1, 'S'); // 2 (legacy data: split inside the pair)
    const response = history.responses('i1', ['a']); // 3
    history.model('i1', 'done'); // 4
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}S`] },
      { role: 'model', parts: ['done'] },
    ]);
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'orphan_response_dropped', seq: response.seq, callId: 'a' }),
    ]);
  });

  it('answers a dangling call in the view only, and leaves the last model calls pending', () => {
    const history = new History();
    history.user('i1', 'go');
    const dangling = history.calls('i1', ['a', 'b']);
    history.responses('i1', ['a']);
    history.user('i2', 'next');
    history.calls('i2', ['c']);
    const before = structuredClone(history.events);
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: ['go'] },
      { role: 'model', parts: ['call:a', 'call:b'] },
      { role: 'user', parts: ['response:b', 'response:a', 'next'] },
      { role: 'model', parts: ['call:c'] },
    ]);
    const synthetic = view.contents[2]!.parts[0]!.functionResponse!;
    expect(synthetic.response).toEqual(MISSING_RESULT_RESPONSE);
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'dangling_call_answered', seq: dangling.seq, callId: 'b' }),
    ]);
    expect(history.events).toEqual(before);

    const strict = activeView({ events: history.events, allowPendingCalls: false });
    expect(strict.warnings.map((warning) => warning.callId)).toEqual(['b', 'c']);
  });

  it('keeps the pending calls of the last model event while some of its responses arrived', () => {
    const history = new History();
    history.user('i1', 'go');
    history.calls('i1', ['a', 'b']);
    history.responses('i1', ['a']);
    const view = activeView({ events: history.events });
    expect(view.warnings).toEqual([]);
    expect(texts(view).at(-1)).toEqual({ role: 'user', parts: ['response:a'] });
  });

  it('does not treat calls followed by a user message as pending', () => {
    const history = new History();
    history.user('i1', 'go');
    history.calls('i1', ['a']);
    history.user('i2', 'never mind');
    const view = activeView({ events: history.events });
    expect(view.warnings.map((warning) => warning.kind)).toEqual(['dangling_call_answered']);
  });

  it('leaves partial (streaming) events and empty contents out of the contents', () => {
    const history = new History();
    history.user('i1', 'go');
    history.add({
      invocationId: 'i1',
      author: 'agent',
      partial: true,
      content: { role: 'model', parts: [{ text: 'chunk' }] },
    });
    history.add({ invocationId: 'i1', author: 'agent', content: { role: 'model', parts: [] } });
    history.model('i1', 'full answer');
    expect(texts(activeView({ events: history.events }))).toEqual([
      { role: 'user', parts: ['go'] },
      { role: 'model', parts: ['full answer'] },
    ]);
  });

  it('assembleView ignores compaction events and covered events in a hand-built tail', () => {
    const history = new History();
    history.user('i1', 'a');
    const checkpoint = history.compaction(1, 1, 'S');
    history.user('i2', 'b');
    const view = assembleView({ checkpoint, tail: history.events });
    expect(view.events.map((event) => event.seq)).toEqual([3]);
    expect(view.contents).toHaveLength(1);
  });
});
