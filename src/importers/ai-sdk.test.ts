import { describe, expect, it } from 'vitest';
import { importAiSdk } from './ai-sdk.js';
import { pairingProblems, partsOf } from './test-helpers/pairing.js';

describe('importAiSdk', () => {
  it('reads ModelMessage parts: reasoning, tool-call input, tool-result output', () => {
    const result = importAiSdk([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'need the tool' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'weather',
            output: { type: 'json', value: { celsius: 4 } },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'zz',
            toolName: 'weather',
            output: { type: 'error-text', value: 'late' },
          },
        ],
      },
      { role: 'assistant', content: '4°C.' },
    ]);
    expect(result.meta.systemInstruction).toBe('Be brief.');
    expect(partsOf(result.events[1])).toEqual([
      { text: 'need the tool', thought: true },
      { functionCall: { id: 't1', name: 'weather', args: { city: 'Oslo' } } },
    ]);
    expect(partsOf(result.events[2])[0]?.functionResponse?.response).toEqual({ celsius: 4 });
    // a result for an unknown call keeps its output and gets a synthesized call
    expect(result.repairs.map((repair) => repair.kind)).toEqual(['call_synthesized']);
    expect(partsOf(result.events[4])[0]?.functionResponse?.response).toEqual({ error: 'late' });
    expect(pairingProblems(result.events)).toEqual([]);
  });

  it('names the message and part of a malformed message', () => {
    expect(() =>
      importAiSdk([{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a' }] }]),
    ).toThrow('[0].content[0].toolName');
    expect(() => importAiSdk([{ role: 'user', content: 5 }])).toThrow('[0].content');
  });
});
