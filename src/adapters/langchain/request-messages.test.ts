import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { ELISION_PLACEHOLDER_PREFIX, elideEvent } from '../../compaction/elision.js';
import { MISSING_RESULT_RESPONSE } from '../../compaction/view.js';
import type { Event } from '../../events/types.js';
import { AI_SDK_METADATA_KEY } from '../shared/conversation-log.js';
import { pairToolCalls, viewMessages } from './request-messages.js';

describe('pairToolCalls', () => {
  it('leaves out a result without its call and answers a call without its result', () => {
    const orphan = new ToolMessage({ tool_call_id: 'gone', name: 'lookup', content: 'old' });
    const call = new AIMessage({
      content: '',
      tool_calls: [
        { id: 'a', name: 'lookup', args: {}, type: 'tool_call' },
        { id: 'b', name: 'lookup', args: {}, type: 'tool_call' },
      ],
    });
    const answer = new ToolMessage({ tool_call_id: 'b', name: 'lookup', content: 'found' });
    const question = new HumanMessage('q');
    const paired = pairToolCalls([question, orphan, call, answer]);
    expect(paired.slice(0, 2)).toEqual([question, call]);
    expect(ToolMessage.isInstance(paired[2])).toBe(true);
    expect(paired[2]).toMatchObject({
      tool_call_id: 'a',
      status: 'error',
      content: MISSING_RESULT_RESPONSE.error,
    });
    expect(paired[3]).toBe(answer);
    expect(paired).toHaveLength(4);
  });

  it('keeps a paired list as it is', () => {
    const call = new AIMessage({
      content: '',
      tool_calls: [{ id: 'a', name: 'x', args: {}, type: 'tool_call' }],
    });
    const result = new ToolMessage({ tool_call_id: 'a', content: 'ok' });
    const list = [new HumanMessage('q'), call, result, new AIMessage('done')];
    expect(pairToolCalls(list)).toEqual(list);
  });
});

describe('viewMessages', () => {
  it('shows an elided tool output as the view has it, not the state message', () => {
    const whole = 'x'.repeat(3000);
    const messages = [
      new HumanMessage('q'),
      new AIMessage({
        content: '',
        tool_calls: [{ id: 'a', name: 'lookup', args: {}, type: 'tool_call' }],
      }),
      new ToolMessage({ tool_call_id: 'a', name: 'lookup', content: whole }),
    ];
    const chains = ['c0', 'c1', 'c2'];
    const logged = (seq: number, content: Event['content']): Event => ({
      id: `e${seq}`,
      seq,
      invocationId: 'i',
      author: seq === 2 ? 'assistant' : 'user',
      timestamp: seq,
      actions: {},
      content,
      customMetadata: { [AI_SDK_METADATA_KEY]: { index: seq - 1, chain: `c${seq - 1}` } },
    });
    const stored = [
      logged(1, { role: 'user', parts: [{ text: 'q' }] }),
      logged(2, {
        role: 'model',
        parts: [{ functionCall: { id: 'a', name: 'lookup', args: {} } }],
      }),
      logged(3, {
        role: 'user',
        parts: [{ functionResponse: { id: 'a', name: 'lookup', response: { result: whole } } }],
      }),
    ];
    const rule = {
      throughSeq: 3,
      minOutputBytes: 100,
      trigger: 'token_threshold' as const,
      tokensBefore: 1,
      tokensAfter: 1,
    };
    const events = stored.map((event) => elideEvent(event, rule));
    const result = viewMessages({ view: { events, contents: [], warnings: [] }, messages, chains });
    expect(result.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(result[2]).not.toBe(messages[2]);
    expect(JSON.stringify(result[2]?.content)).toContain(ELISION_PLACEHOLDER_PREFIX);
    expect(JSON.stringify(result[2]?.content)).not.toContain(whole);
  });
});
