import { describe, expect, it } from 'vitest';
import { importSweAgent } from './swe-agent.js';
import { pairingProblems, partsOf } from './test-helpers/pairing.js';

describe('importSweAgent', () => {
  it('turns id-less actions into calls with generated ids, answered by the next observation', () => {
    const result = importSweAgent({
      history: [
        { role: 'system', content: 'You are an autonomous programmer.' },
        { role: 'user', content: 'Fix the issue.' },
        { role: 'assistant', content: 'Look first.\n```\nls -F\n```', action: 'ls -F\n' },
        { role: 'user', content: 'src/ tests/' },
        { role: 'assistant', content: 'Open it.', action: 'open src/a.py 10\n' },
        { role: 'user', content: '[File: src/a.py]' },
        { role: 'assistant', content: 'Done.', action: 'submit\n' },
      ],
      info: { model_stats: { model: 'gpt4' } },
    });
    expect(result.meta.systemInstruction).toBe('You are an autonomous programmer.');
    const calls = result.events.flatMap((event) =>
      partsOf(event).flatMap((part) => (part.functionCall ? [part.functionCall] : [])),
    );
    expect(calls).toEqual([
      { id: 'call_1', name: 'bash', args: { command: 'ls -F\n' } },
      { id: 'call_2', name: 'open', args: { command: 'open src/a.py 10\n' } },
      { id: 'call_3', name: 'submit', args: { command: 'submit\n' } },
    ]);
    expect(partsOf(result.events[2])[0]?.functionResponse).toEqual({
      id: 'call_1',
      name: 'bash',
      response: { result: 'src/ tests/' },
    });
    expect(result.repairs.map((repair) => repair.kind)).toEqual([
      'call_id_assigned',
      'result_paired_by_position',
      'call_id_assigned',
      'result_paired_by_position',
      'call_id_assigned',
      'call_without_result',
    ]);
    expect(pairingProblems(result.events)).toEqual([]);
  });

  it('pairs function-calling history with reused ids by position', () => {
    const toolCall = (id: string, name: string) => [
      { id, type: 'function', function: { name, arguments: '{}' } },
    ];
    const result = importSweAgent({
      history: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'a', action: 'x', tool_calls: toolCall('c', 'bash') },
        { role: 'tool', content: 'one', tool_call_ids: ['c'] },
        { role: 'assistant', content: 'b', action: 'y', tool_calls: toolCall('c', 'bash') },
        { role: 'tool', content: 'two', tool_call_ids: ['c'] },
      ],
    });
    expect(pairingProblems(result.events)).toEqual([]);
    expect(partsOf(result.events[4])[0]?.functionResponse?.id).toBe('c_2');
    expect(() => importSweAgent({ history: [{ role: 'bot' }] })).toThrow('history[0].role');
    expect(() => importSweAgent({ trajectory: [] })).toThrow('history');
  });
});
