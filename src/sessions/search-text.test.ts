import { describe, expect, it } from 'vitest';
import { MAX_QUERY_TERMS, searchTerms, tokenizeSearchText } from './search-text.js';

describe('searchTerms', () => {
  it('leaves the function words of a question out', () => {
    expect(searchTerms('What do we know about the checkout-api timeout?')).toEqual([
      'know',
      'checkout',
      'api',
      'timeout',
    ]);
    expect(searchTerms('Could you say if any of them would fail, and why?')).toEqual([
      'say',
      'fail',
    ]);
  });

  it('keeps a question of stop words only, and no word twice', () => {
    expect(searchTerms('to be or not to be')).toEqual(['not']);
    expect(searchTerms('to be or to be')).toEqual(['to', 'be', 'or']);
  });

  it(`keeps at most ${MAX_QUERY_TERMS} terms`, () => {
    const words = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ');
    expect(searchTerms(words)).toHaveLength(MAX_QUERY_TERMS);
  });
});

describe('tokenizeSearchText', () => {
  it('splits on every character that is no letter, digit or mark', () => {
    expect(tokenizeSearchText('src/foo_bar.ts: ERR_TIMEOUT')).toEqual([
      'src',
      'foo',
      'bar',
      'ts',
      'err',
      'timeout',
    ]);
    expect(tokenizeSearchText('Zürich', { foldDiacritics: true })).toEqual(['zurich']);
  });
});
