import { describe, expect, it } from 'vitest';
import { ImportError } from './errors.js';
import { importOpenAiChat, openAiChatRuns } from './openai-chat.js';
import { increasingTimestamps, pairingProblems, partsOf } from './test-helpers/pairing.js';

const call = (id: string | undefined, name: string, args: object) => ({
  ...(id === undefined ? {} : { id }),
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe('importOpenAiChat', () => {
  it('keeps system messages as the instruction and turns calls and results into events', () => {
    const result = importOpenAiChat(
      [
        { role: 'system', content: 'You are an airline agent.' },
        { role: 'user', content: 'Cancel reservation ABC123' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [call('c1', 'get_reservation', { id: 'ABC123' })],
        },
        {
          role: 'tool',
          tool_call_id: 'c1',
          name: 'get_reservation',
          content: '{"status":"active"}',
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      ],
      { agentName: 'airline', startTime: 1000 },
    );
    expect(result.meta.systemInstruction).toBe('You are an airline agent.');
    expect(result.events.map((event) => [event.author, event.content?.role])).toEqual([
      ['user', 'user'],
      ['airline', 'model'],
      ['airline', 'user'],
      ['airline', 'model'],
    ]);
    expect(partsOf(result.events[1])[0]?.functionCall).toEqual({
      id: 'c1',
      name: 'get_reservation',
      args: { id: 'ABC123' },
    });
    expect(partsOf(result.events[2])[0]?.functionResponse).toEqual({
      id: 'c1',
      name: 'get_reservation',
      response: { result: '{"status":"active"}' },
    });
    expect(result.repairs).toEqual([]);
    expect(result.events[0]?.timestamp).toBe(1000);
    expect(increasingTimestamps(result.events)).toBe(true);
    expect(new Set(result.events.map((event) => event.invocationId)).size).toBe(1);
  });

  it('renames reused call ids and pairs each result with the call before it (tau-bench)', () => {
    const result = importOpenAiChat([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call('dup', 'a', {})] },
      { role: 'tool', tool_call_id: 'dup', name: 'a', content: 'first' },
      { role: 'user', content: 'again' },
      { role: 'assistant', content: null, tool_calls: [call('dup', 'b', {})] },
      { role: 'tool', tool_call_id: 'dup', name: 'b', content: 'second' },
    ]);
    const ids = result.events.flatMap((event) =>
      partsOf(event).map((part) => part.functionCall?.id ?? part.functionResponse?.id),
    );
    expect(ids.filter(Boolean)).toEqual(['dup', 'dup', 'dup_2', 'dup_2']);
    expect(result.repairs.map((repair) => repair.kind)).toEqual(['call_id_renamed']);
    expect(pairingProblems(result.events)).toEqual([]);
    expect(new Set(result.events.map((event) => event.invocationId)).size).toBe(2);
  });

  it('gives legacy function calls ids and synthesizes a call for a result with none', () => {
    const result = importOpenAiChat({
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'ghost', name: 'lookup', content: 'orphan output' },
        { role: 'assistant', content: '', function_call: { name: 'f', arguments: '{"a":1}' } },
        { role: 'function', name: 'f', content: 'ok' },
      ],
    });
    expect(result.repairs.map((repair) => repair.kind)).toEqual([
      'call_synthesized',
      'call_id_assigned',
      'result_paired_by_position',
    ]);
    expect(pairingProblems(result.events)).toEqual([]);
    const synthesized = result.events[1];
    expect(partsOf(synthesized)[0]?.functionCall).toMatchObject({ id: 'ghost', name: 'lookup' });
    expect(synthesized?.customMetadata).toEqual({ 'orrery:importRepair': 'call_synthesized' });
    // the orphan result itself is kept verbatim
    expect(partsOf(result.events[2])[0]?.functionResponse?.response).toEqual({
      result: 'orphan output',
    });
  });

  it('appends an OpenHands completion response and picks tau-bench runs', () => {
    const completion = importOpenAiChat({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'fix it' }] }],
      response: {
        model: 'claude',
        choices: [{ message: { role: 'assistant', content: 'fixed' } }],
      },
      timestamp: 1733339462.5,
    });
    expect(completion.events).toHaveLength(2);
    expect(completion.meta.model).toBe('claude');
    expect(completion.events[1]?.timestamp).toBe(1733339462.5);

    const runs = [
      { task_id: 1, trial: 0, traj: [{ role: 'user', content: 'a' }] },
      { task_id: 2, trial: 1, traj: [{ role: 'user', content: 'b' }] },
    ];
    expect(openAiChatRuns(runs)).toHaveLength(2);
    const second = importOpenAiChat(runs, { run: 1 });
    expect(partsOf(second.events[0])[0]?.text).toBe('b');
    expect(second.meta).toMatchObject({ run: 1, runCount: 2, sourceId: 'task 2 trial 1' });
    expect(() => importOpenAiChat(runs, { run: 5 })).toThrow(/run 5 does not exist/);
  });

  it('names the message index and field of a malformed message', () => {
    const bad = [
      { role: 'user', content: 'x' },
      { role: 'assistant', tool_calls: [{ id: 'a', function: {} }] },
    ];
    expect(() => importOpenAiChat(bad)).toThrow(ImportError);
    expect(() => importOpenAiChat(bad)).toThrow('[1].tool_calls[0].function.name');
    expect(() => importOpenAiChat([{ role: 'robot', content: 'x' }])).toThrow('[0].role');
    expect(() => importOpenAiChat('{"messages": [')).toThrow(/not valid JSON/);
  });

  it('keeps an image a tool returned as an image beside the result', () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const result = importOpenAiChat([
      { role: 'user', content: 'Show me the chart' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'chart', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: [
          { type: 'text', text: 'rendered: ' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
    ]);
    expect(result.events[2]?.content?.parts).toEqual([
      {
        functionResponse: {
          id: 'c1',
          name: 'chart',
          response: { result: 'rendered: [image/png]' },
        },
      },
      { inlineData: { mimeType: 'image/png', data: png } },
    ]);
  });
});
