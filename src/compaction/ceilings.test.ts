import { describe, expect, it } from 'vitest';
import type { CompactionEvent, Event } from '../events/types.js';
import { compactionEvent } from '../testing/event-builders.js';
import { contentsBytes, fitViewToCeilings, truncateMiddle } from './ceilings.js';
import { assembleView } from './view.js';

function event(seq: number, fields: Partial<Event>): Event {
  return {
    id: `e${seq}`,
    seq,
    invocationId: 'i1',
    author: 'agent',
    timestamp: seq,
    actions: {},
    ...fields,
  };
}

function toolTail(outputSize: number): Event[] {
  return [
    event(1, { author: 'user', content: { role: 'user', parts: [{ text: 'read the log' }] } }),
    event(2, {
      content: {
        role: 'model',
        parts: [{ functionCall: { id: 'c1', name: 'read_log', args: {} } }],
      },
    }),
    event(3, {
      content: {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'c1',
              name: 'read_log',
              response: { output: `BEGIN ${'x'.repeat(outputSize)} END` },
            },
          },
        ],
      },
    }),
    event(4, { content: { role: 'model', parts: [{ text: 'the log is long' }] } }),
  ];
}

describe('fitViewToCeilings', () => {
  it('returns the plain view when it fits', () => {
    const tail = toolTail(1000);
    const fitted = fitViewToCeilings({ tail, maxRequestBytes: 100_000, maxTokens: 100_000 });
    expect(fitted.contents).toEqual(assembleView({ tail }).contents);
    expect(fitted).toEqual(expect.objectContaining({ overLimit: false, truncated: 0 }));
    expect(fitted.bytes).toBe(contentsBytes(fitted.contents));
  });

  it('truncates an oversized tool response in the view only, naming the stored event', () => {
    const tail = toolTail(200_000);
    const before = structuredClone(tail);
    const fitted = fitViewToCeilings({ tail, maxRequestBytes: 20_000 });
    expect(fitted.overLimit).toBe(false);
    expect(fitted.bytes).toBeLessThanOrEqual(20_000);
    expect(fitted.bytes).toBeGreaterThan(15_000); // keeps as much as fits
    expect(fitted.truncated).toBe(1);
    const response = fitted.contents
      .flatMap((content) => content.parts)
      .find((part) => part.functionResponse)!.functionResponse!;
    const result = String(response.response.result);
    expect(result.startsWith('{"output":"BEGIN')).toBe(true);
    expect(result.endsWith('END"}')).toBe(true);
    expect(result).toContain('event e3 (seq 3)');
    expect(fitted.warnings).toEqual([
      expect.objectContaining({ kind: 'tool_output_truncated', seq: 3, callId: 'c1' }),
    ]);
    expect(tail).toEqual(before);
  });

  it('truncates an assembled view as given, keeping a call restored from storage', () => {
    // The call (seq 2) was summarized; its response (seq 3) is an orphan in the tail.
    const [, call, response, answer] = toolTail(200_000) as [Event, Event, Event, Event];
    const tail = [response, answer];
    const view = assembleView({ tail, restoredCalls: new Map([['c1', call]]) });
    const fitted = fitViewToCeilings({ tail, view, maxRequestBytes: 20_000 });
    const parts = fitted.contents.flatMap((content) => content.parts);
    expect(parts.some((part) => part.functionCall?.id === 'c1')).toBe(true);
    expect(fitted.truncated).toBe(1);
    expect(fitted.bytes).toBeLessThanOrEqual(20_000);
    // Without the assembled view the orphan is dropped: the option is what keeps the call.
    const plain = fitViewToCeilings({ tail, maxRequestBytes: 20_000 });
    expect(
      plain.contents.flatMap((content) => content.parts).some((part) => part.functionCall),
    ).toBe(false);
  });

  it('fits a token ceiling too (overhead included)', () => {
    const tail = toolTail(100_000);
    const fitted = fitViewToCeilings({ tail, maxTokens: 3000, overheadTokens: 500 });
    expect(fitted.overLimit).toBe(false);
    expect(fitted.tokens).toBeLessThanOrEqual(3000);
  });

  it('reports when even truncation cannot fit (the summary alone is too big)', () => {
    const summary = compactionEvent({ startSeq: 1, endSeq: 4, text: 's'.repeat(50_000) });
    const checkpoint = event(10, summary) as CompactionEvent;
    const fitted = fitViewToCeilings({ checkpoint, tail: [], maxRequestBytes: 1000 });
    expect(fitted.overLimit).toBe(true);
    expect(fitted.truncated).toBe(0);
  });
});

describe('truncateMiddle', () => {
  it('keeps head and tail around the marker', () => {
    const text = `${'a'.repeat(50)}${'b'.repeat(50)}`;
    const cut = truncateMiddle(text, 10, 'see e1');
    expect(cut).toBe('aaaaa\n…[90 characters omitted; see e1]…\nbbbbb');
    expect(truncateMiddle('short', 10, 'x')).toBe('short');
  });
});
