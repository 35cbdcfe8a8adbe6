/** The inspector's row words (assets/inspector/event-text.js): who wrote a row, labelled figures. */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the inspector's browser modules are plain JavaScript without types.
import { authorLabel, compactionText } from '../../../assets/inspector/event-text.js';

const span = {
  startSeq: 1,
  endSeq: 9,
  trigger: 'token_threshold',
  tokensBefore: 434,
  tokensAfter: 342,
  summarizer: 'digest',
};

describe('inspector row text', () => {
  it('a compaction row names its summarizer, not the stored author user', () => {
    expect(authorLabel({ kind: 'compaction', author: 'user' }, span)).toBe('digest');
    expect(authorLabel({ kind: 'compaction', author: 'user' }, undefined)).toBe('orrery');
    expect(authorLabel({ kind: 'user', author: 'user' }, undefined)).toBe('user');
  });

  it("labels the compaction's token figures as the next request's, by the trigger", () => {
    expect(compactionText(span)).toBe(
      'summarizes #1–#9 · token_threshold · next request 434 → 342 tokens (trigger) · digest',
    );
  });
});
