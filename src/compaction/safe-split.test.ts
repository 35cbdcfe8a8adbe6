import { describe, expect, it } from 'vitest';
import type { CompactionEvent, Event, EventActions, Part } from '../events/types.js';
import { findSafeSplit, openObligations } from './safe-split.js';

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

function split(history: History, desiredEndIndex: number, currentInvocationId?: string) {
  return findSafeSplit({ events: history.events, desiredEndIndex, currentInvocationId });
}

describe('findSafeSplit', () => {
  it('keeps the desired split when nothing is open', () => {
    const history = new History();
    history.user('i1', 'go');
    history.calls('i1', ['a']);
    history.responses('i1', ['a']);
    history.model('i1', 'done');
    expect(split(history, 2)).toEqual({ endIndex: 2, deadCalls: [] });
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('moves earlier so a response never stays without its call', () => {
    const history = new History();
    history.user('i1', 'go'); // 0
    history.calls('i1', ['a']); // 1
    history.responses('i1', ['a']); // 2
    expect(split(history, 1).endIndex).toBe(0);
  });

  it('keeps parallel calls together until every response arrived', () => {
    const history = new History();
    history.user('i1', 'go'); // 0
    history.calls('i1', ['a', 'b', 'c']); // 1
    history.responses('i1', ['b']); // 2
    history.responses('i1', ['a', 'c']); // 3
    history.model('i1', 'done'); // 4
    expect(split(history, 1).endIndex).toBe(0);
    expect(split(history, 2).endIndex).toBe(0);
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('returns -1 when the first event already opens something', () => {
    const history = new History();
    history.calls('i1', ['a']);
    history.responses('i1', ['a']);
    expect(split(history, 0)).toEqual({ endIndex: -1, deadCalls: [] });
    expect(split(history, -1).endIndex).toBe(-1);
  });

  it('never summarizes a pending tool confirmation until the user answers', () => {
    const history = new History();
    history.user('i1', 'delete it'); // 0
    history.calls('i1', ['x']); // 1
    history.add({
      invocationId: 'i1',
      author: 'agent',
      content: {
        role: 'user',
        parts: [{ functionResponse: { id: 'x', name: 'tool_x', response: { pending: true } } }],
      },
      actions: { requestedToolConfirmations: { x: { hint: 'sure?' } } },
    }); // 2: the tool's answer requests a confirmation
    history.user('i2', 'unrelated'); // 3: a later invocation, still unanswered
    expect(split(history, 3).endIndex).toBe(0);
    expect(openObligations({ events: history.events })).toEqual([
      expect.objectContaining({ kind: 'tool_confirmation', id: 'x', seq: 3 }),
    ]);
    history.add({
      invocationId: 'i3',
      author: 'user',
      content: {
        role: 'user',
        parts: [{ functionResponse: { id: 'x', name: 'tool_x', response: { confirmed: true } } }],
      },
    }); // 4: the user's answer closes it
    expect(split(history, 4).endIndex).toBe(4);
  });

  it('treats auth requests like confirmations: never dead', () => {
    const history = new History();
    history.user('i1', 'read mail'); // 0
    history.add({
      invocationId: 'i1',
      author: 'agent',
      content: { role: 'model', parts: [{ text: 'need auth' }] },
      actions: { requestedAuthConfigs: { auth1: {} } },
    }); // 1
    history.user('i2', 'hello?'); // 2
    expect(split(history, 2).endIndex).toBe(0);
  });

  it('does not let a dead call (no response, invocation over) block, and reports it', () => {
    const history = new History();
    history.user('i1', 'go'); // 0
    const crashed = history.calls('i1', ['a']); // 1: the tool crashed
    history.user('i2', 'still there?'); // 2
    history.model('i2', 'yes'); // 3
    expect(split(history, 3)).toEqual({
      endIndex: 3,
      deadCalls: [{ callId: 'a', name: 'tool_a', seq: crashed.seq, invocationId: 'i1' }],
    });
    // Reported only when summarized.
    expect(split(history, 0).deadCalls).toEqual([]);
    expect(openObligations({ events: history.events })).toEqual([]);
  });

  it('does not call a call dead while its invocation runs', () => {
    const history = new History();
    history.user('i1', 'go'); // 0
    history.calls('i1', ['a']); // 1
    history.model('i1', 'thinking'); // 2
    expect(split(history, 2).endIndex).toBe(0);
    history.user('i2', 'next'); // 3: another invocation started, but i1 is declared running
    expect(split(history, 3, 'i1').endIndex).toBe(0);
    expect(split(history, 3).endIndex).toBe(3);
  });

  it('ignores compaction events when deciding that an invocation ended', () => {
    const history = new History();
    history.user('i1', 'go'); // 0
    history.calls('i1', ['a']); // 1
    history.compaction(1, 1, 'S'); // 2: fresh invocation id
    expect(split(history, 2).endIndex).toBe(0);
  });

  it('keeps a long-running tool open across its intermediate responses', () => {
    const history = new History();
    history.user('i1', 'deploy'); // 0
    const call = history.calls('i1', ['job']); // 1
    call.longRunningToolIds = ['job'];
    history.responses('i1', ['job']); // 2: intermediate, same invocation
    history.user('i2', 'status?'); // 3
    expect(split(history, 3).endIndex).toBe(0);
    expect(split(history, 3).deadCalls).toEqual([]);
    history.responses('i3', ['job']); // 4: final, a later invocation
    expect(split(history, 4).endIndex).toBe(4);
  });

  it('is linear: 100k events in well under a second', () => {
    const history = new History();
    for (let index = 0; index < 25_000; index++) {
      history.user(`i${index}`, 'go');
      history.calls(`i${index}`, [`a${index}`]);
      history.responses(`i${index}`, [`a${index}`]);
      history.model(`i${index}`, 'done');
    }
    const started = performance.now();
    expect(split(history, history.events.length - 2).endIndex).toBe(history.events.length - 2);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
