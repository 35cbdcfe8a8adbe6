import { describe, expect, it } from 'vitest';
import {
  estimateContentBytes,
  estimateContentListTokens,
} from '../../compaction/token-estimate.js';
import type { Content } from '../../events/types.js';
import { RequestMeasure } from './request-measure.js';

const overhead = { tokens: 40, bytes: 300 };

/** What `measureView` gives for the same contents. */
function direct(contents: Content[]) {
  let bytes = overhead.bytes;
  for (const content of contents) bytes += estimateContentBytes(content);
  return { tokens: overhead.tokens + estimateContentListTokens(contents), bytes };
}

describe('RequestMeasure', () => {
  it('gives the tokens and bytes of estimateContentTokens and the contents as JSON', () => {
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'Summary: é ü 日本 "quoted"\n' }, { text: 'next' }] },
      {
        role: 'model',
        parts: [
          { text: 'thinking', thought: true },
          { functionCall: { id: 'c1', name: 'grep', args: { pattern: 'a"b', n: 3 } } },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'grep', response: { lines: [1, 2] } } }],
      },
      { role: 'model', parts: [] },
    ];
    const measure = new RequestMeasure(overhead);
    expect(measure.measure(contents)).toEqual(direct(contents));
    // Measured again from the cache: the same figures.
    expect(measure.measure(contents)).toEqual(direct(contents));
  });

  it('tells long texts of the same length apart', () => {
    const measure = new RequestMeasure(overhead);
    const letters: Content[] = [{ role: 'user', parts: [{ text: 'a'.repeat(2_000) }] }];
    const digits: Content[] = [{ role: 'user', parts: [{ text: '1'.repeat(2_000) }] }];
    expect(measure.measure(letters)).toEqual(direct(letters));
    expect(measure.measure(digits)).toEqual(direct(digits));
    // A new part object with a text seen before (a summary in the next view) is counted alike.
    const again: Content[] = [{ role: 'user', parts: [{ text: 'a'.repeat(2_000) }] }];
    expect(measure.measure(again)).toEqual(direct(again));
  });

  it('serializes a content with other keys as a whole', () => {
    const odd = { parts: [{ text: 'x' }], role: 'user' } as Content;
    const measure = new RequestMeasure(overhead);
    expect(measure.measure([odd])).toEqual(direct([odd]));
  });
});
