/**
 * Claude Code runs parallel tool calls while the message still streams: results are written
 * between the records of that message. All its records are one model call; the results follow.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getFunctionCalls, getFunctionResponses } from '../events/event-helpers.js';
import { importClaudeCode } from './claude-code.js';
import { pairingProblems } from './test-helpers/pairing.js';

const fixture = readFileSync(
  new URL('./fixtures/claude-code-parallel-tools.jsonl', import.meta.url),
  'utf8',
);

describe('importClaudeCode with tool results interleaved in a streamed message', () => {
  it('makes one model event of every record of the message, its results after it', () => {
    const { events, repairs } = importClaudeCode(fixture);
    const shape = events.map((event) =>
      event.content?.role === 'model'
        ? `model:${getFunctionCalls(event)
            .map((call) => call.id)
            .join(',')}`
        : `${event.author}:${getFunctionResponses(event)
            .map((response) => response.id)
            .join(',')}`,
    );
    expect(shape).toEqual([
      'user:',
      'model:toolu_01CHK,toolu_01PAY,toolu_01LOG',
      'agent:toolu_01CHK',
      'agent:toolu_01PAY',
      'agent:toolu_01LOG',
      'model:',
      'user:',
      'model:',
    ]);
    const message = events[1]?.content?.parts ?? [];
    expect(message.slice(0, 2)).toEqual([
      {
        text: 'Check both services and the logs in parallel.',
        thought: true,
        thoughtSignature: 'EqQBCkYIBRgCKkA',
      },
      { text: "I'll check both services and their logs at once." },
    ]);
    expect(events[1]?.finishReason).toBe('tool_use');
    expect(pairingProblems(events)).toEqual([]);
    expect(repairs).toEqual([
      {
        kind: 'records_merged',
        message:
          "5 records of assistant message 'msg_01PAR' merged into one event (1 tool result record(s) written between them follow it)",
        location: 'lines 2-7',
      },
    ]);
  });
});
