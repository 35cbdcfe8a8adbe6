import { describe, expect, it } from 'vitest';
import { labelSummaryLines } from './seq-labels.js';

describe('labelSummaryLines', () => {
  it('gives every content line without a seq the range the summary covers', () => {
    const text = [
      '## User goal',
      '"Ship 4.2.0" (seq 1)',
      '',
      '## Facts obtained',
      '- The port is 8443',
      '- Build 77 failed [seq 14-15]',
      '- uses seqs 3 and 9',
      '## Errors',
      'none',
      '```',
      'code line',
      '```',
    ].join('\n');
    expect(labelSummaryLines({ text, fromSeq: 1, toSeq: 20 }).split('\n')).toEqual([
      '## User goal',
      '"Ship 4.2.0" (seq 1)',
      '',
      '## Facts obtained',
      '- The port is 8443 (seq 1-20)',
      '- Build 77 failed [seq 14-15]',
      '- uses seqs 3 and 9',
      '## Errors',
      'none',
      '```',
      'code line',
      '```',
    ]);
    expect(labelSummaryLines({ text: 'one fact', fromSeq: 4, toSeq: 4 })).toBe('one fact (seq 4)');
  });
});
