import { describe, expect, it } from 'vitest';
import { longTranscript } from '../testing/long-transcript.js';
import { findIdentifiers } from './digest-identifiers.js';

/** The patterns' first form: every match collected, then masked with `String#replace`. */
function reference(text: string): string[] {
  const trailing = /[.,;:!?]+$/;
  const collect = (input: string, pattern: RegExp, found: string[]) => {
    for (const match of input.matchAll(pattern)) {
      const value = match[0].replace(trailing, '');
      if (value !== '') found.push(value);
    }
    return input.replace(pattern, ' ');
  };
  const found: string[] = [];
  let rest = collect(text, /\bhttps?:\/\/[^\s"'`<>()[\]{}\\]+/g, found);
  rest = collect(rest, /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, found);
  rest = collect(rest, /(?<![\w.:/~-])(?:~|\.{1,2})?\/(?:[\w@.+-]+\/)*[\w@.+-]*[\w@+-]/g, found);
  rest = collect(rest, /(?<![\w./~-])(?:[\w@.+-]+\/)+[\w@+-]+\.[A-Za-z0-9]{1,8}\b/g, found);
  rest = collect(
    rest,
    /\bv\d+(?:\.\d+){1,3}(?:-[\w.]+)?\b|\b\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?\b/g,
    found,
  );
  const tickets: string[] = [];
  rest = collect(rest, /\b[A-Z][A-Z0-9]*(?:[-_][A-Z0-9]+)*\b/g, tickets);
  for (const ticket of tickets) {
    const digits = [...ticket].filter((character) => character >= '0' && character <= '9');
    if (digits.length >= 2 && ticket.length >= 4 && /[A-Z]/.test(ticket)) found.push(ticket);
  }
  collect(rest, /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g, found);
  return found;
}

describe('findIdentifiers', () => {
  it('finds URLs, UUIDs, paths, versions, tickets and hashes, each once', () => {
    const text =
      'See https://ci.example.com/run/42, /var/log/app.log and src/a/b.ts at v1.2.3 ' +
      '(INC-4411, commit 3f2a9c1d) for 123e4567-e89b-12d3-a456-426614174000.';
    expect(findIdentifiers(text)).toEqual([
      'https://ci.example.com/run/42',
      '123e4567-e89b-12d3-a456-426614174000',
      '/var/log/app.log',
      'src/a/b.ts',
      'v1.2.3',
      'INC-4411',
      '3f2a9c1d',
    ]);
  });

  it('gives what matching then masking with String#replace gives', () => {
    const samples = [
      '',
      'no identifiers at all',
      'a/b and/or c.d e-f',
      'http://a.b/c?d=e https://x.y/z. ../up/one.txt ~/home/file.md ./here.js',
      'deadbeef1 cafebabe2 ABC12 AB-12 v10.0 1.2.3-rc.1 9.9.9',
      '123E4567-E89B-12D3-A456-426614174000 /etc/hosts: /usr/lib/x.so.1,',
      ...longTranscript({ events: 200, seed: 3 }).map((event) => JSON.stringify(event)),
    ];
    for (const text of samples) expect(findIdentifiers(text), text).toEqual(reference(text));
  });
});
