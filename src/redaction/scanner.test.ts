import { describe, expect, it } from 'vitest';
import { redactText } from './redact-json.js';
import { defaultRedactionRules } from './rules.js';
import { findRedactionSpans, type RedactionRule } from './scanner.js';
import { negativeSamples, positiveSamples } from './test-helpers/redaction-corpus.js';

describe('findRedactionSpans', () => {
  it('merges overlapping spans under the earlier rule and narrows to the secret group', () => {
    const rules: RedactionRule[] = [
      { kind: 'first', pattern: /key=(?<secret>\w{1,20})/ },
      { kind: 'second', pattern: /\d{1,3}-\d{1,3}/ },
    ];
    const text = 'key=abc123-456 and 7-8';
    expect(findRedactionSpans({ text, rules })).toEqual([
      { start: 4, end: 14, kind: 'first' },
      { start: 19, end: 22, kind: 'second' },
    ]);
    expect(redactText(text, { rules })).toBe('key=[REDACTED:first] and [REDACTED:second]');
  });

  it('keeps a candidate its validator refuses and gives the validator the context', () => {
    const seen: string[] = [];
    const rules: RedactionRule[] = [
      {
        kind: 'even',
        pattern: /\d{1,4}/,
        validate: ({ match, text, start }) => {
          seen.push(`${text[start - 1] ?? '^'}${match}`);
          return Number(match) % 2 === 0;
        },
      },
    ];
    expect(redactText('1 22 333', { rules })).toBe('1 [REDACTED:even] 333');
    expect(seen).toEqual(['^1', ' 22', ' 333', '333', '33']);
  });

  it('takes scan rules, and a pattern that matches the empty string does not loop', () => {
    const rules: RedactionRule[] = [
      { kind: 'empty', pattern: /x{0,3}/ },
      {
        kind: 'scanned',
        scan: (text) => [{ start: text.indexOf('b'), end: text.indexOf('b') + 1 }],
      },
    ];
    expect(redactText('abxc', { rules })).toBe('a[REDACTED:scanned][REDACTED:empty]c');
  });
});

describe("a rule's requires", () => {
  it('skips the scan of a text without it, and one RegExp is tested once per text', () => {
    const shared = /k/;
    let scans = 0;
    const counted = (kind: string): RedactionRule => ({
      kind,
      pattern: /k\d/,
      requires: shared,
      validate: () => {
        scans++;
        return true;
      },
    });
    const rules: RedactionRule[] = [
      counted('first'),
      counted('second'),
      { kind: 'at', pattern: /@\w/, requires: '@' },
    ];
    expect(findRedactionSpans({ text: 'no match here', rules })).toEqual([]);
    expect(scans).toBe(0);
    expect(redactText('k1 @a', { rules })).toBe('[REDACTED:first] [REDACTED:at]');
    expect(scans).toBe(2);
  });

  it('changes no span of the default rules (every corpus sample, whole and cut)', () => {
    const withoutRequires = defaultRedactionRules.map((rule) => {
      if ('scan' in rule) return rule;
      const { requires: _requires, ...rest } = rule;
      return rest;
    });
    expect(withoutRequires.some((rule, index) => rule !== defaultRedactionRules[index])).toBe(true);
    const texts = [...positiveSamples, ...negativeSamples].flatMap((sample) => {
      const text = typeof sample.input === 'string' ? sample.input : JSON.stringify(sample.input);
      return [text, text.slice(1), text.slice(0, -1), text.toUpperCase(), text.toLowerCase()];
    });
    expect(texts.length).toBeGreaterThan(100);
    for (const text of texts) {
      expect(findRedactionSpans({ text, rules: defaultRedactionRules }), text).toEqual(
        findRedactionSpans({ text, rules: withoutRequires }),
      );
    }
  });
});

/** Inputs on which one backtracking pattern per class took quadratic time or worse. */
const unchanged: Record<string, string> = {
  'one hex token (email, key rules)': 'a1b2c3d4e5f6'.repeat(90_000),
  'one base64 token (JWT, AWS secret)': `eyJ${'Ab0+/cD9'.repeat(130_000)}`,
  'one digit run (card, phone)': '4'.repeat(1_000_000),
  'digits and spaces (card, phone)': '4111 '.repeat(200_000),
  'dotted digits (IP, phone)': '1.'.repeat(500_000),
  'colons (IPv6)': 'a:'.repeat(500_000),
  'scheme prefixes (URL credentials)': 'http://user:'.repeat(85_000),
  'at signs (email)': 'a@'.repeat(500_000),
  'an unclosed quote after a key (quoted secret)': `"token" ${'\\x'.repeat(500_000)}`,
};

describe('redaction runs in linear time', () => {
  // About 1 MB each: linear time is well under a second; the quadratic patterns this replaced
  // took 7 s on 80 kB of hex, so minutes here. The test timeout only bounds a hang.
  const options = { timeout: 120_000 };
  for (const [name, text] of Object.entries(unchanged)) {
    it(`returns ${(text.length / 1e6).toFixed(1)} MB of ${name} unchanged`, options, () => {
      expect(redactText(text, { rules: defaultRedactionRules }) === text).toBe(true);
    });
  }

  it('redacts 1 MB of BEGIN lines without an END line by line', options, () => {
    const text = '-----BEGIN RSA PRIVATE KEY-----\n'.repeat(32_000);
    expect(redactText(text)).toBe('[REDACTED:private_key]'.repeat(32_000));
  });

  it('redacts 1 MB of key words without values', options, () => {
    const redacted = redactText('password=password='.repeat(55_000));
    expect(redacted.length).toBeLessThan(40_000);
    expect(redacted.startsWith('password=[REDACTED:secret]')).toBe(true);
  });
});
