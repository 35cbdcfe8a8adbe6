import { describe, expect, it } from 'vitest';
import { cloneEvent, createEvent, getFunctionCalls, getText } from './event-helpers.js';
import type { Event } from './types.js';

describe('event helpers', () => {
  it('cloneEvent copies deeply', () => {
    const event: Event = {
      ...createEvent({ author: 'agent', invocationId: 'i' }),
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'c', name: 'f', args: { nested: { value: 1 } } } }],
      },
      seq: 3,
    };
    const copy = cloneEvent(event);
    expect(copy).toEqual(event);
    (copy.content!.parts[0]!.functionCall!.args.nested as { value: number }).value = 2;
    expect(getFunctionCalls(event)[0]!.args).toEqual({ nested: { value: 1 } });
  });

  it('getText leaves thoughts out', () => {
    const content = {
      role: 'model' as const,
      parts: [{ text: 'hidden', thought: true }, { text: 'a' }, { text: 'b' }],
    };
    expect(getText(content)).toBe('ab');
  });
});
