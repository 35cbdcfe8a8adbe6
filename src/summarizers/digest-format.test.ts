import { describe, expect, it } from 'vitest';
import {
  type DigestSectionKey,
  emptySections,
  formatDigest,
  formattedDigestLength,
  formattedItemLength,
  parseDigest,
  type SectionLength,
} from './digest-format.js';

function lengthsOf(sections: ReturnType<typeof emptySections>) {
  const lengths = {} as Record<DigestSectionKey, SectionLength>;
  for (const key of Object.keys(sections) as DigestSectionKey[]) {
    const items = sections[key];
    lengths[key] = {
      count: items.length,
      itemsLength: items.reduce((total, item) => total + formattedItemLength(item), 0),
    };
  }
  return lengths;
}

describe('formattedDigestLength', () => {
  it('is the length of the formatted digest, with and without its coverage line', () => {
    const empty = emptySections();
    const some = emptySections();
    some.userRequests.push('fix the deploy', 'and\nthen\nthe tests');
    some.identifiers.push('/var/log/app.log');
    some.earlierSummary.push('line one\n\nline three\n');
    const full = emptySections();
    for (const key of Object.keys(full) as DigestSectionKey[]) {
      full[key].push(`${key} item`, `${key}\nwith a second line`, '');
    }
    for (const sections of [empty, some, full]) {
      for (const coveredThroughSeq of [undefined, 0, 7, 123_456]) {
        const text = formatDigest(sections, { coveredThroughSeq });
        expect(formattedDigestLength(lengthsOf(sections), { coveredThroughSeq })).toBe(text.length);
        // The form still parses back to the same items.
        if (text.includes('##')) expect(parseDigest(text)).toEqual(sections);
      }
    }
  });
});
