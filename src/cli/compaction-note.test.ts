import { describe, expect, it } from 'vitest';
import type { CompactionReport } from '../runtime/compactor.js';
import { compactionNote } from './compaction-note.js';

const base: CompactionReport = {
  sessionId: 's',
  trigger: 'token_threshold',
  outcome: 'skipped',
  tokensBefore: 12_400,
  durationMs: 1,
};

describe('compactionNote', () => {
  it('prints a line when an elision rule is written', () => {
    const note = compactionNote({
      report: {
        ...base,
        outcome: 'elided',
        tier: 'elision',
        tokensAfter: 5_210,
        elidedThroughSeq: 41,
        elidedOutputs: 3,
      },
      summarizerLabel: 'm',
    });
    expect(note).toBe(
      '· elided (token_threshold): 3 tool outputs through seq 41, tokens 12,400 -> 5,210\n',
    );
  });

  it('keeps the compacted and failed lines', () => {
    expect(
      compactionNote({
        report: { ...base, outcome: 'compacted', startSeq: 1, endSeq: 9, tokensAfter: 800 },
        summarizerLabel: 'm',
      }),
    ).toBe('· compacted (token_threshold): seq 1-9, tokens 12,400 -> 800\n');
    expect(
      compactionNote({
        report: { ...base, outcome: 'failed', reason: 'boom' },
        summarizerLabel: 'm',
      }),
    ).toBe('· compaction failed (token_threshold): boom; the old view is kept\n');
  });

  it('prints nothing for a skip', () => {
    expect(compactionNote({ report: base, summarizerLabel: 'm' })).toBeUndefined();
  });
});
