import { describe, expect, it } from 'vitest';
import type { Event } from '../../events/types.js';
import { renderRecallItem } from './recall-tool.js';

describe('renderRecallItem', () => {
  it('keeps the lines holding the searched words from the middle of a long tool output', () => {
    const filler = Array.from({ length: 120 }, (_, index) => `src/file_${index}.ts: nothing here`);
    const output = [
      ...filler.slice(0, 60),
      'NOTE The staging port for project orchid is 4821.',
      ...filler.slice(60),
    ];
    const event: Event = {
      seq: 42,
      id: 'e',
      invocationId: 'i',
      author: 'agent',
      timestamp: 1,
      actions: {},
      content: {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c', name: 'grep', response: { output: output.join('\n') } } },
        ],
      },
    };
    const text = renderRecallItem({
      event,
      maxChars: 2000,
      query: 'What is the staging port for project orchid?',
    });
    expect(text).toContain('NOTE The staging port for project orchid is 4821.');
    expect(text.length).toBeLessThan(2400);
    // Without a query: head and tail only, the middle is gone.
    expect(renderRecallItem({ event, maxChars: 2000 })).not.toContain('4821');
  });
});
