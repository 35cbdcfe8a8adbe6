import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { MISSING_RESULT_RESPONSE } from '../../compaction/view.js';
import { pairToolCalls } from './request-messages.js';

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
