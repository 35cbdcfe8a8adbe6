/**
 * `orrery replay` with the elision tier on (ORRERY_COMPACTION_ELISION=1): the rules it records
 * are listed in the human report and in `--json`, as compactions are; off, neither says a word.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

const file = join('examples', 'incident-session.jsonl');

describe('orrery replay with ORRERY_COMPACTION_ELISION=1', () => {
  it('lists the elision rules in --json (call, events covered, tokens before -> after)', async () => {
    const on = await cli(['replay', file, '--json'], { env: { ORRERY_COMPACTION_ELISION: '1' } });
    expect(on.code).toBe(0);
    const report = JSON.parse(on.stdout);
    expect(report.elisions.length).toBeGreaterThan(0);
    for (const elision of report.elisions) {
      expect(elision).toEqual({
        trigger: 'token_threshold',
        throughSeq: expect.any(Number),
        elidedOutputs: expect.any(Number),
        tokensBefore: expect.any(Number),
        tokensAfter: expect.any(Number),
        beforeCall: expect.any(Number),
      });
      expect(elision.tokensAfter).toBeLessThan(elision.tokensBefore);
      expect(elision.elidedOutputs).toBeGreaterThan(0);
      expect(elision.throughSeq).toBeLessThanOrEqual(report.events);
    }
    const off = JSON.parse((await cli(['replay', file, '--json'])).stdout);
    expect(off).not.toHaveProperty('elisions');
  });

  it('lists them in the human report', async () => {
    const on = await cli(['replay', file], { env: { ORRERY_COMPACTION_ELISION: '1' } });
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(/^Elision rules \(\d+\)$/m);
    expect(on.stdout).toMatch(/^ {2}1 +token_threshold +call \d+ +1-\d+ +\d+ +[\d,]+ -> [\d,]+$/m);
    const off = await cli(['replay', file]);
    expect(off.stdout).not.toContain('Elision rules');
  });
});
