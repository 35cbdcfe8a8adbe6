import { describe, expect, it } from 'vitest';
import type { CompactionEvent, Event } from '../events/types.js';
import { compactionEvent } from '../testing/event-builders.js';
import { fitViewToCeilings, truncateMiddle } from './ceilings.js';
import { estimateContentListBytes } from './token-estimate.js';
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
    expect(fitted.bytes).toBe(estimateContentListBytes(fitted.contents));
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
    expect(result).toContain('the full output is stored in event at seq 3');
    expect(result).not.toContain('event e3');
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

  it('cuts an oversized summary in the view, naming the compaction event that holds it whole', () => {
    const text = `GOAL ${'s'.repeat(5_000_000)} NEXT`;
    const summary = compactionEvent({ startSeq: 1, endSeq: 4, text });
    const checkpoint = event(10, summary) as CompactionEvent;
    const before = structuredClone(checkpoint);
    const tail = [
      event(11, { author: 'user', content: { role: 'user', parts: [{ text: 'next question' }] } }),
    ];
    const fitted = fitViewToCeilings({ checkpoint, tail, maxRequestBytes: 200_000 });
    expect(fitted.overLimit).toBe(false);
    expect(fitted.bytes).toBeLessThanOrEqual(200_000);
    expect(fitted.bytes).toBeGreaterThan(190_000);
    expect(fitted.truncated).toBe(1);
    const shown = fitted.contents[0]!.parts[0]!.text!;
    expect(shown.startsWith('Summary of the conversation so far:\nGOAL')).toBe(true);
    expect(shown.endsWith('NEXT')).toBe(true);
    expect(shown).toContain('the whole summary is stored in compaction event at seq 10');
    expect(shown).not.toContain(checkpoint.id);
    expect(fitted.contents[0]!.parts[1]).toEqual({ text: 'next question' });
    expect(fitted.warnings).toEqual([expect.objectContaining({ kind: 'text_truncated', seq: 10 })]);
    expect(checkpoint).toEqual(before);
  });

  it('never cuts an event it is told to keep whole, and says when nothing else can give', () => {
    const big = { role: 'user' as const, parts: [{ text: 'u'.repeat(50_000) }] };
    const tail = [event(1, { author: 'user', content: big })];
    const kept = fitViewToCeilings({ tail, maxRequestBytes: 1000, keepWhole: new Set(['e1']) });
    expect(kept).toEqual(expect.objectContaining({ overLimit: true, truncated: 0 }));
    expect(kept.contents[0]!.parts[0]!.text).toHaveLength(50_000);
    const cut = fitViewToCeilings({ tail, maxRequestBytes: 1000 });
    expect(cut).toEqual(expect.objectContaining({ overLimit: false, truncated: 1 }));
    // Even the smallest cut is over a tiny ceiling: reported, not hidden.
    const tiny = fitViewToCeilings({ tail, maxRequestBytes: 100 });
    expect(tiny.overLimit).toBe(true);
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
