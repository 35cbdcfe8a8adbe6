import { describe, expect, it } from 'vitest';
import type { Part } from '../events/types.js';
import { HistoryBuilder } from '../testing/event-builders.js';
import {
  activeView,
  assembleView,
  CONTINUATION_TEXT,
  isBetterCheckpoint,
  isValidCompaction,
  MISSING_RESULT_RESPONSE,
  SUMMARY_PREFIX,
  selectCheckpoint,
} from './view.js';

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
  it('accepts only well-formed ranges (1 <= startSeq <= endSeq < seq)', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'hello' });
    const good = history.compaction({ startSeq: 1, endSeq: 1, text: 'ok' });
    const ahead = history.compaction({ startSeq: 1, endSeq: 5, text: 'covers itself' });
    const inverted = history.compaction({ startSeq: 2, endSeq: 1, text: 'inverted' });
    const fromZero = history.compaction({ startSeq: 0, endSeq: 1, text: 'starts at 0' });
    const fractional = history.compaction({ startSeq: 1, endSeq: 1.5, text: 'not an integer' });
    expect(isValidCompaction(good)).toBe(true);
    expect(isValidCompaction(ahead)).toBe(false);
    expect(isValidCompaction(inverted)).toBe(false);
    expect(isValidCompaction(fromZero)).toBe(false);
    expect(isValidCompaction(fractional)).toBe(false);
    expect(isValidCompaction(history.events[0]!)).toBe(false);
    expect(selectCheckpoint(history.events)).toBe(good);
  });

  it('orders checkpoints by endSeq, then seq', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' });
    history.userText({ invocationId: 'i1', text: 'b' });
    const narrow = history.compaction({ startSeq: 1, endSeq: 1 });
    const wide = history.compaction({ startSeq: 1, endSeq: 2 });
    const wideLater = history.compaction({ startSeq: 1, endSeq: 2 });
    expect(isBetterCheckpoint(narrow, undefined)).toBe(true);
    expect(isBetterCheckpoint(wide, narrow)).toBe(true);
    expect(isBetterCheckpoint(narrow, wide)).toBe(false);
    expect(isBetterCheckpoint(wideLater, wide)).toBe(true);
    expect(isBetterCheckpoint(wide, wideLater)).toBe(false);
    expect(isBetterCheckpoint(wide, wide)).toBe(false);
  });

  it('picks the largest endSeq, then the later seq', () => {
    const history = new HistoryBuilder();
    for (let index = 0; index < 4; index++)
      history.userText({ invocationId: 'i1', text: `m${index}` });
    const wide = history.compaction({ startSeq: 1, endSeq: 3, text: 'wide' });
    history.compaction({ startSeq: 1, endSeq: 2, text: 'narrow, later' });
    expect(selectCheckpoint(history.events)?.id).toBe(wide.id);
    const tie = history.compaction({ startSeq: 1, endSeq: 3, text: 'same end, later' });
    expect(selectCheckpoint(history.events)?.id).toBe(tie.id);
  });
});

describe('activeView', () => {
  it('puts the summary first as user text, then the tail after endSeq', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'first' });
    history.modelText({ invocationId: 'i1', text: 'answer' });
    history.compaction({ startSeq: 1, endSeq: 2, text: 'they said hi' });
    history.userText({ invocationId: 'i2', text: 'second' });
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}they said hi`, 'second'] },
    ]);
    expect(view.events.map((event) => event.seq)).toEqual([4]);
  });

  it('keeps events appended before a late compaction visible when they are after its range', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'one' }); // 1
    history.modelText({ invocationId: 'i1', text: 'two' }); // 2
    history.userText({ invocationId: 'i2', text: 'three' }); // 3
    history.modelText({ invocationId: 'i2', text: 'four' }); // 4
    history.compaction({ startSeq: 1, endSeq: 2, text: 'S' }); // 5: computed earlier, appended late
    const view = activeView({ events: history.events });
    expect(view.events.map((event) => event.seq)).toEqual([3, 4]);
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}S`, 'three'] },
      { role: 'model', parts: ['four'] },
    ]);
  });

  it('decides by seq even when timestamps are equal or go backwards', () => {
    const history = new HistoryBuilder();
    const first = history.userText({ invocationId: 'i1', text: 'a' });
    const second = history.modelText({ invocationId: 'i1', text: 'b' });
    const third = history.userText({ invocationId: 'i2', text: 'c' });
    first.timestamp = 5;
    second.timestamp = 5;
    third.timestamp = 1;
    history.compaction({ startSeq: 1, endSeq: 2, text: 'S' });
    expect(activeView({ events: history.events }).events.map((event) => event.seq)).toEqual([3]);
  });

  it('sorts an unsorted list by seq and merges adjacent same-role contents', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' });
    history.userText({ invocationId: 'i1', text: 'b' });
    history.modelText({ invocationId: 'i1', text: 'c' });
    history.modelText({ invocationId: 'i1', text: 'd' });
    const view = activeView({ events: [...history.events].reverse() });
    expect(texts(view)).toEqual([
      { role: 'user', parts: ['a', 'b'] },
      { role: 'model', parts: ['c', 'd'] },
    ]);
  });

  it('opens with a user content when the tail starts with the model and there is no summary', () => {
    const history = new HistoryBuilder();
    history.modelText({ invocationId: 'i1', text: 'hello from the model' });
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [CONTINUATION_TEXT] },
      { role: 'model', parts: ['hello from the model'] },
    ]);
  });

  it('drops a response whose call is not in the view, with a warning', () => {
    const history = new HistoryBuilder();
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 1
    history.compaction({ startSeq: 1, endSeq: 1, text: 'S' }); // 2 (legacy data: split inside the pair)
    const response = history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 3
    history.modelText({ invocationId: 'i1', text: 'done' }); // 4
    const view = activeView({ events: history.events });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}S`] },
      { role: 'model', parts: ['done'] },
    ]);
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'orphan_response_dropped', seq: response.seq, callId: 'a' }),
    ]);
  });

  it('puts a restored call (just the call part) back right before its orphan response', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 1
    const callEvent = history.functionCalls({ invocationId: 'i1', calls: ['a', 'b'] }); // 2
    history.compaction({ startSeq: 1, endSeq: 2, text: 'S' }); // 3 (legacy: split inside pairs)
    const response = history.functionResponses({ invocationId: 'i1', responses: ['a', 'b'] }); // 4
    history.modelText({ invocationId: 'i1', text: 'done' }); // 5
    const before = structuredClone(history.events);
    const checkpoint = selectCheckpoint(history.events)!;
    const tail = history.events.filter((event) => event.seq > 3);
    // Only 'a' was found in storage: 'b' is still dropped.
    const view = assembleView({
      checkpoint,
      tail,
      restoredCalls: new Map([['a', callEvent]]),
    });
    expect(texts(view)).toEqual([
      { role: 'user', parts: [`${SUMMARY_PREFIX}S`] },
      { role: 'model', parts: ['call:a'] },
      { role: 'user', parts: ['response:a'] },
      { role: 'model', parts: ['done'] },
    ]);
    expect(view.contents[1]!.parts[0]).toEqual(callEvent.content!.parts[0]);
    expect(view.warnings).toEqual([
      expect.objectContaining({ kind: 'orphan_call_restored', seq: response.seq, callId: 'a' }),
      expect.objectContaining({ kind: 'orphan_response_dropped', seq: response.seq, callId: 'b' }),
    ]);
    expect(history.events).toEqual(before);
  });

  it('drops the orphan when the restored event does not hold that call', () => {
    const history = new HistoryBuilder();
    const other = history.functionCalls({ invocationId: 'i1', calls: ['x'] }); // 1
    history.compaction({ startSeq: 1, endSeq: 1, text: 'S' }); // 2
    history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 3
    const view = assembleView({
      checkpoint: selectCheckpoint(history.events),
      tail: history.events.slice(2),
      restoredCalls: new Map([['a', other]]),
    });
    expect(texts(view)).toEqual([{ role: 'user', parts: [`${SUMMARY_PREFIX}S`] }]);
    expect(view.warnings.map((warning) => warning.kind)).toEqual(['orphan_response_dropped']);
  });

  it('answers a dangling call in the view only, and leaves the last model calls pending', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    const dangling = history.functionCalls({ invocationId: 'i1', calls: ['a', 'b'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    history.userText({ invocationId: 'i2', text: 'next' });
    history.functionCalls({ invocationId: 'i2', calls: ['c'] });
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
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    history.functionCalls({ invocationId: 'i1', calls: ['a', 'b'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    const view = activeView({ events: history.events });
    expect(view.warnings).toEqual([]);
    expect(texts(view).at(-1)).toEqual({ role: 'user', parts: ['response:a'] });
  });

  it('does not treat calls followed by a user message as pending', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    history.functionCalls({ invocationId: 'i1', calls: ['a'] });
    history.userText({ invocationId: 'i2', text: 'never mind' });
    const view = activeView({ events: history.events });
    expect(view.warnings.map((warning) => warning.kind)).toEqual(['dangling_call_answered']);
  });

  it('leaves partial (streaming) events and empty contents out of the contents', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    history.modelText({ invocationId: 'i1', text: 'chunk', partial: true });
    history.append({ invocationId: 'i1', author: 'agent', content: { role: 'model', parts: [] } });
    history.modelText({ invocationId: 'i1', text: 'full answer' });
    expect(texts(activeView({ events: history.events }))).toEqual([
      { role: 'user', parts: ['go'] },
      { role: 'model', parts: ['full answer'] },
    ]);
  });

  it('assembleView ignores compaction events and covered events in a hand-built tail', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'a' });
    const checkpoint = history.compaction({ startSeq: 1, endSeq: 1, text: 'S' });
    history.userText({ invocationId: 'i2', text: 'b' });
    const view = assembleView({ checkpoint, tail: history.events });
    expect(view.events.map((event) => event.seq)).toEqual([3]);
    expect(view.contents).toHaveLength(1);
  });
});
