import { describe, expect, it } from 'vitest';
import { ELISION_PLACEHOLDER_PREFIX } from '../../compaction/elision.js';
import type { Event } from '../../events/types.js';
import { elisionRuleEvent } from '../shared/test-helpers/elision-rule.js';
import { itemToContent } from './item-content.js';
import { buildSessionView, OPENAI_AGENTS_METADATA_KEY, tombstoneEvent } from './session-view.js';

function itemEvent(seq: number, item: Record<string, unknown>, invocationId = 'inv-1'): Event {
  return {
    id: `e${seq}`,
    invocationId,
    author: 'user',
    timestamp: seq,
    seq,
    content: itemToContent(item),
    actions: {},
    customMetadata: { [OPENAI_AGENTS_METADATA_KEY]: { item } },
  };
}

const call = { type: 'function_call', callId: 'c1', name: 'lookup', arguments: '{}' };
const output = {
  type: 'function_call_result',
  callId: 'c1',
  name: 'lookup',
  status: 'completed',
  output: 'x',
};

describe('buildSessionView', () => {
  it('leaves out a tool output whose call is hidden, and the hidden call', () => {
    const tail: Event[] = [
      itemEvent(1, { role: 'user', content: 'hi' }),
      itemEvent(2, call),
      itemEvent(3, output),
      { ...tombstoneEvent({ id: 't', invocationId: 'inv-2', tombstone: { seq: 2 } }), seq: 4 },
    ];
    const view = buildSessionView({ tail, lastSeq: 4 });
    expect(view.entries.map((entry) => entry.item)).toEqual([{ role: 'user', content: 'hi' }]);
    // Compaction plans from the visible events only: no tombstone, no hidden call.
    expect(view.stored.tail.map((event) => event.seq)).toEqual([1, 3]);
  });

  it('shows an event another runtime wrote by its texts, calls and results', () => {
    const foreign: Event = {
      id: 'f',
      invocationId: 'inv-1',
      author: 'agent',
      timestamp: 1,
      seq: 1,
      content: {
        role: 'model',
        parts: [
          { text: 'plan', thought: true },
          { text: 'Calling.' },
          { functionCall: { id: 'k', name: 'get', args: { a: 1 } } },
        ],
      },
      actions: {},
    };
    const view = buildSessionView({ tail: [foreign], lastSeq: 1 });
    expect(view.entries.map((entry) => entry.item)).toEqual([
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Calling.' }],
      },
      {
        type: 'function_call',
        callId: 'k',
        name: 'get',
        arguments: '{"a":1}',
        status: 'completed',
      },
    ]);
  });
});

describe('buildSessionView with an elision rule', () => {
  it('shows an elided tool output as its placeholder, and keeps the rule for compaction', () => {
    const whole = 'y'.repeat(5000);
    const rule = elisionRuleEvent({ seq: 4, throughSeq: 3 });
    const tail: Event[] = [
      itemEvent(1, { role: 'user', content: 'hi' }),
      itemEvent(2, call),
      itemEvent(3, { ...output, output: whole }),
      rule,
    ];
    const view = buildSessionView({ tail, lastSeq: 4 });
    const result = view.entries.at(-1)?.item as { callId: string; output: { text: string } };
    expect(result.callId).toBe('c1');
    expect(result.output.text.startsWith(ELISION_PLACEHOLDER_PREFIX)).toBe(true);
    expect(JSON.stringify(view.entries.map((entry) => entry.item))).not.toContain(whole);
    expect(view.lastInvocationId).toBe('inv-1');
    expect(view.stored.tail.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });
});
