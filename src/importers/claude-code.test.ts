import { describe, expect, it } from 'vitest';
import { importClaudeCode, SIDECHAIN_BRANCH } from './claude-code.js';
import { ImportError } from './errors.js';
import { increasingTimestamps, pairingProblems, partsOf } from './test-helpers/pairing.js';

const line = (record: object) => JSON.stringify(record);
const at = (second: number) => `2025-06-01T10:00:${String(second).padStart(2, '0')}.000Z`;

const session = [
  line({ type: 'summary', summary: 'Earlier work', leafUuid: 'x' }),
  line({
    type: 'user',
    sessionId: 's-1',
    timestamp: at(0),
    message: { role: 'user', content: 'Why is checkout slow?' },
  }),
  line({
    type: 'assistant',
    timestamp: at(1),
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-sonnet-4',
      content: [{ type: 'thinking', thinking: 'check logs', signature: 'sig' }],
    },
  }),
  line({
    type: 'assistant',
    timestamp: at(2),
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-sonnet-4',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'Bash',
          input: { command: 'kubectl logs checkout' },
        },
      ],
      usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 },
    },
  }),
  line({ type: 'progress', data: {} }),
  line({
    type: 'user',
    timestamp: at(3),
    message: {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'timeout' }],
          is_error: true,
        },
      ],
    },
  }),
  line({
    type: 'user',
    isSidechain: true,
    timestamp: at(4),
    message: { role: 'user', content: 'sub-agent task' },
  }),
  line({
    type: 'assistant',
    isSidechain: true,
    timestamp: at(5),
    message: {
      id: 'msg_2',
      role: 'assistant',
      content: [{ type: 'text', text: 'sub-agent done' }],
    },
  }),
  line({
    type: 'user',
    isCompactSummary: true,
    timestamp: at(6),
    message: { role: 'user', content: 'This session is being continued...' },
  }),
].join('\n');

describe('importClaudeCode', () => {
  it('merges streamed records, skips non-conversation lines and keeps sidechains on a branch', () => {
    const result = importClaudeCode(session);
    expect(result.meta).toMatchObject({
      format: 'claude-code',
      skipped: 2,
      model: 'claude-sonnet-4',
      sourceId: 's-1',
    });
    expect(result.events).toHaveLength(6);
    const model = result.events[1];
    expect(partsOf(model)).toEqual([
      { text: 'check logs', thought: true, thoughtSignature: 'sig' },
      { functionCall: { id: 'toolu_1', name: 'Bash', args: { command: 'kubectl logs checkout' } } },
    ]);
    expect(model?.usageMetadata).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 5,
      totalTokenCount: 105,
      cachedContentTokenCount: 90,
    });
    expect(partsOf(result.events[2])[0]?.functionResponse).toEqual({
      id: 'toolu_1',
      name: 'Bash',
      response: { error: 'timeout' },
    });
    expect(result.events[3]?.branch).toBe(SIDECHAIN_BRANCH);
    // the sub-agent runs inside the invocation that spawned it; the compact summary starts a new one
    expect(result.events[3]?.invocationId).toBe(result.events[0]?.invocationId);
    expect(result.events[5]?.invocationId).not.toBe(result.events[0]?.invocationId);
    expect(result.events[5]?.customMetadata).toEqual({ 'orrery:earlierSummary': true });
    expect(result.repairs.map((repair) => repair.kind)).toEqual(['records_merged']);
    expect(result.events[0]?.timestamp).toBe(Date.parse(at(0)) / 1000);
    expect(increasingTimestamps(result.events)).toBe(true);
    expect(pairingProblems(result.events)).toEqual([]);
  });

  it('names the line of a malformed record', () => {
    const broken = `${line({ type: 'user', message: { content: 'hi' } })}\n{not json\n`;
    expect(() => importClaudeCode(broken)).toThrow(ImportError);
    expect(() => importClaudeCode(broken)).toThrow(/^line 2: not valid JSON/);
    const noMessage = `${line({ type: 'user' })}`;
    expect(() => importClaudeCode(noMessage)).toThrow('line 1, message:');
    const badContent = `\n${line({ type: 'assistant', message: { content: 42 } })}`;
    expect(() => importClaudeCode(badContent)).toThrow('line 2, message.content:');
  });

  it('keeps images a tool returned as images, not their base64 as result text', () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const text = [
      line({ type: 'user', timestamp: at(0), message: { role: 'user', content: 'Look at it' } }),
      line({
        type: 'assistant',
        timestamp: at(1),
        message: {
          id: 'm1',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.png' } }],
        },
      }),
      line({
        type: 'user',
        timestamp: at(2),
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: 'Read image' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              ],
            },
          ],
        },
      }),
    ].join('\n');
    const result = importClaudeCode(text);
    expect(partsOf(result.events[2])).toEqual([
      {
        functionResponse: {
          id: 't1',
          name: 'Read',
          response: { result: 'Read image\n[image: image/png]' },
        },
      },
      { inlineData: { mimeType: 'image/png', data: png } },
    ]);
    expect(pairingProblems(result.events)).toEqual([]);
  });
});
