/**
 * The seeded corpus of the search benches (search.bench.ts, postgres-search-probe.ts): one
 * generator, so both write the same events and ask the same questions.
 *
 * Events: seeded text over a 5,000-word vocabulary (30 words, a quarter of them tool results of
 * ~1.5 KB); words drawn Zipf-like: low indexes are common words, high ones rare.
 */
import type { NewEvent } from '../src/events/types.js';

export interface SearchCorpus {
  vocabulary: string[];
  /** One word, Zipf-like. */
  word(): string;
  words(count: number): string;
  /** The `index`th event of the corpus. */
  event(index: number): NewEvent;
}

/** The corpus drawn from `next` (the caller keeps drawing from it for its questions). */
export function searchCorpus(next: () => number): SearchCorpus {
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ren',
    'tas',
    'vo',
    'quil',
    'dor',
    'sen',
    'pra',
    'zu',
    'fen',
  ];
  const vocabulary = Array.from({ length: 5000 }, (_, index) => {
    let text = '';
    for (let part = 0; part < 3; part++) text += syllables[Math.floor(next() * syllables.length)];
    return `${text}${index}`;
  });
  const word = () => vocabulary[Math.floor(vocabulary.length * next() ** 2)]!;
  const words = (count: number) => Array.from({ length: count }, word).join(' ');
  const event = (index: number): NewEvent => {
    const base = {
      id: `e${index}`,
      invocationId: `i${Math.floor(index / 4)}`,
      timestamp: 1_700_000_000 + index,
      actions: {},
    };
    if (index % 4 === 2) {
      return {
        ...base,
        author: 'agent',
        content: {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: `c${index}`,
                name: 'run_command',
                response: { output: words(200) },
              },
            },
          ],
        },
      };
    }
    return {
      ...base,
      author: index % 2 === 0 ? 'user' : 'agent',
      content: { role: index % 2 === 0 ? 'user' : 'model', parts: [{ text: words(30) }] },
    };
  };
  return { vocabulary, word, words, event };
}
