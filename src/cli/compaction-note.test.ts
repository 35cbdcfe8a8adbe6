import { describe, expect, it } from 'vitest';
import type { CompactionReport } from '../runtime/compaction/compactor.js';
import { compactionNote, littleReclaimedNote } from './compaction-note.js';

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

describe('littleReclaimedNote', () => {
  const compacted = { ...base, outcome: 'compacted' as const, startSeq: 1, endSeq: 9 };

  it('speaks when the next request stays at 80% of the threshold or more', () => {
    expect(
      littleReclaimedNote({ report: { ...compacted, tokensAfter: 900 }, tokenThreshold: 1000 }),
    ).toMatch(
      /^· note: that compaction left the next request at 900 tokens, 90% of the 1,000-token threshold/,
    );
    expect(
      littleReclaimedNote({
        report: { ...compacted, tokensAfter: 700, ineffective: true },
        tokenThreshold: 1000,
      }),
    ).toMatch(/70% of the 1,000-token threshold/);
  });

  it('is silent when the compaction made room, failed, or no threshold is set', () => {
    expect(
      littleReclaimedNote({ report: { ...compacted, tokensAfter: 799 }, tokenThreshold: 1000 }),
    ).toBeUndefined();
    expect(
      littleReclaimedNote({ report: { ...base, outcome: 'failed' }, tokenThreshold: 1000 }),
    ).toBeUndefined();
    expect(
      littleReclaimedNote({
        report: { ...compacted, tokensAfter: 900 },
        tokenThreshold: undefined,
      }),
    ).toBeUndefined();
  });
});
