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

  it('keeps images in content outputs as images and reads AI SDK 4 errors as errors', () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const result = importAiSdk([
      { role: 'user', content: 'Screenshot the page, then run the check' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 's1', toolName: 'screenshot', input: {} },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'check', args: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 's1',
            toolName: 'screenshot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'the page' },
                { type: 'media', data: png, mediaType: 'image/png' },
              ],
            },
          },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'check',
            result: 'exit 1',
            isError: true,
          },
        ],
      },
    ]);
    expect(partsOf(result.events[2])).toEqual([
      {
        functionResponse: {
          id: 's1',
          name: 'screenshot',
          response: { result: 'the page\n[image/png]' },
        },
      },
      { functionResponse: { id: 'c1', name: 'check', response: { error: 'exit 1' } } },
      { inlineData: { mimeType: 'image/png', data: png } },
    ]);
    expect(pairingProblems(result.events)).toEqual([]);
  });
});
