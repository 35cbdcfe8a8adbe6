import { describe, expect, it } from 'vitest';
import { HistoryBuilder } from '../testing/event-builders.js';
import { findSafeSplit, openObligations } from './safe-split.js';

function split(history: HistoryBuilder, desiredEndIndex: number, currentInvocationId?: string) {
  return findSafeSplit({ events: history.events, desiredEndIndex, currentInvocationId });
}

describe('findSafeSplit', () => {
  it('keeps the desired split when nothing is open', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' });
    history.functionCalls({ invocationId: 'i1', calls: ['a'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    history.modelText({ invocationId: 'i1', text: 'done' });
    expect(split(history, 2)).toEqual({ endIndex: 2, deadCalls: [] });
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('moves earlier so a response never stays without its call', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 0
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 1
    history.functionResponses({ invocationId: 'i1', responses: ['a'] }); // 2
    expect(split(history, 1).endIndex).toBe(0);
  });

  it('keeps parallel calls together until every response arrived', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 0
    history.functionCalls({ invocationId: 'i1', calls: ['a', 'b', 'c'] }); // 1
    history.functionResponses({ invocationId: 'i1', responses: ['b'] }); // 2
    history.functionResponses({ invocationId: 'i1', responses: ['a', 'c'] }); // 3
    history.modelText({ invocationId: 'i1', text: 'done' }); // 4
    expect(split(history, 1).endIndex).toBe(0);
    expect(split(history, 2).endIndex).toBe(0);
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('returns -1 when the first event already opens something', () => {
    const history = new HistoryBuilder();
    history.functionCalls({ invocationId: 'i1', calls: ['a'] });
    history.functionResponses({ invocationId: 'i1', responses: ['a'] });
    expect(split(history, 0)).toEqual({ endIndex: -1, deadCalls: [] });
    expect(split(history, -1).endIndex).toBe(-1);
  });

  it('never summarizes a pending tool confirmation until the user answers', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'delete it' }); // 0
    history.functionCalls({ invocationId: 'i1', calls: ['x'] }); // 1
    history.functionResponses({
      invocationId: 'i1',
      responses: [{ id: 'x', response: { pending: true } }],
      actions: { requestedToolConfirmations: { x: { hint: 'sure?' } } },
    }); // 2: the tool's answer requests a confirmation
    history.userText({ invocationId: 'i2', text: 'unrelated' }); // 3: a later invocation, still unanswered
    expect(split(history, 3).endIndex).toBe(0);
    expect(openObligations({ events: history.events })).toEqual([
      expect.objectContaining({ kind: 'tool_confirmation', id: 'x', seq: 3 }),
    ]);
    history.functionResponses({
      invocationId: 'i3',
      author: 'user',
      responses: [{ id: 'x', response: { confirmed: true } }],
    }); // 4: the user's answer closes it
    expect(split(history, 4).endIndex).toBe(4);
  });

  it('treats auth requests like confirmations: never dead', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'read mail' }); // 0
    history.modelText({
      invocationId: 'i1',
      text: 'need auth',
      actions: { requestedAuthConfigs: { auth1: {} } },
    }); // 1
    history.userText({ invocationId: 'i2', text: 'hello?' }); // 2
    expect(split(history, 2).endIndex).toBe(0);
  });

  it('does not let a dead call (no response, invocation over) block, and reports it', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 0
    const crashed = history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 1: the tool crashed
    history.userText({ invocationId: 'i2', text: 'still there?' }); // 2
    history.modelText({ invocationId: 'i2', text: 'yes' }); // 3
    expect(split(history, 3)).toEqual({
      endIndex: 3,
      deadCalls: [{ callId: 'a', name: 'tool_a', seq: crashed.seq, invocationId: 'i1' }],
    });
    // Reported only when summarized.
    expect(split(history, 0).deadCalls).toEqual([]);
    expect(openObligations({ events: history.events })).toEqual([]);
  });

  it('does not call a call dead while its invocation runs', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 0
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 1
    history.modelText({ invocationId: 'i1', text: 'thinking' }); // 2
    expect(split(history, 2).endIndex).toBe(0);
    history.userText({ invocationId: 'i2', text: 'next' }); // 3: another invocation started, but i1 is declared running
    expect(split(history, 3, 'i1').endIndex).toBe(0);
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('ignores compaction events when deciding that an invocation ended', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'go' }); // 0
    history.functionCalls({ invocationId: 'i1', calls: ['a'] }); // 1
    history.compaction({ startSeq: 1, endSeq: 1, text: 'S' }); // 2: fresh invocation id
    expect(split(history, 2).endIndex).toBe(0);
  });

  it('keeps a long-running tool open across its intermediate responses', () => {
    const history = new HistoryBuilder();
    history.userText({ invocationId: 'i1', text: 'deploy' }); // 0
    const call = history.functionCalls({ invocationId: 'i1', calls: ['job'] }); // 1
    call.longRunningToolIds = ['job'];
    history.functionResponses({ invocationId: 'i1', responses: ['job'] }); // 2: intermediate, same invocation
    history.userText({ invocationId: 'i2', text: 'status?' }); // 3
    expect(split(history, 3).endIndex).toBe(0);
    expect(split(history, 3).deadCalls).toEqual([]);
    history.functionResponses({ invocationId: 'i3', responses: ['job'] }); // 4: final, a later invocation
    expect(split(history, 4).endIndex).toBe(4);
  });

  it('is linear: reads each event a bounded number of times, whatever the history length', () => {
    // Counted, not timed: every property read of an event, at 20k and at 80k events.
    const reads = (invocations: number) => {
      const history = new HistoryBuilder();
      for (let index = 0; index < invocations; index++) {
        history.userText({ invocationId: `i${index}`, text: 'go' });
        history.functionCalls({ invocationId: `i${index}`, calls: [`a${index}`] });
        history.functionResponses({ invocationId: `i${index}`, responses: [`a${index}`] });
        history.modelText({ invocationId: `i${index}`, text: 'done' });
      }
      let count = 0;
      const events = history.events.map(
        (event) =>
          new Proxy(event, {
            get(target, property, receiver) {
              count++;
              return Reflect.get(target, property, receiver);
            },
          }),
      );
      const desiredEndIndex = events.length - 2;
      expect(findSafeSplit({ events, desiredEndIndex }).endIndex).toBe(desiredEndIndex);
      return count / events.length;
    };
    const small = reads(5_000);
    const large = reads(20_000);
    expect(small).toBeGreaterThan(0);
    // Quadratic work would read each event ~4x as often at 4x the length.
    expect(large / small).toBeLessThan(1.2);
  });
});
