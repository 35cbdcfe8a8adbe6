import { describe, expect, it } from 'vitest';
import { cli } from '../../test/cli/in-process.js';

const FILE = 'examples/incident-session.jsonl';
const PRICE = 'anthropic:claude-sonnet-4-5';

interface Compaction {
  tokensBefore: number;
  costChoice?: {
    reason: string;
    retainedTokens: number;
    expectedUsd: number;
    thresholdOnlyUsd: number;
  };
}

describe('orrery replay --cost-aware', () => {
  it('reports each choice: early ones under the threshold, required ones at it', async () => {
    const result = await cli([
      'replay',
      FILE,
      '--threshold',
      '30000',
      '--price',
      PRICE,
      '--cost-aware',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      compactions: Compaction[];
      cost: { summarizerModel: string };
    };
    expect(report.compactions.length).toBeGreaterThan(0);
    for (const compaction of report.compactions) {
      const choice = compaction.costChoice;
      expect(choice).toBeDefined();
      if (choice!.reason === 'threshold')
        expect(compaction.tokensBefore).toBeGreaterThanOrEqual(30_000);
      else {
        expect(['cheaper_now', 'cold_cache']).toContain(choice!.reason);
        expect(compaction.tokensBefore).toBeLessThan(30_000);
        expect(compaction.tokensBefore).toBeGreaterThanOrEqual(15_000);
      }
      expect(choice!.expectedUsd).toBeLessThanOrEqual(choice!.thresholdOnlyUsd + 1e-9);
    }
    // The cost-aware default summarizer of an agent on Anthropic.
    expect(report.cost.summarizerModel).toBe('anthropic:claude-haiku-4-5');
  }, 120_000);

  it('prints the choice column, and without the flag neither the column nor a choice', async () => {
    const on = await cli([
      'replay',
      FILE,
      '--threshold',
      '30000',
      '--price',
      PRICE,
      '--cost-aware',
    ]);
    expect(on.stdout).toContain('cost-aware choice');
    const off = await cli(['replay', FILE, '--threshold', '30000', '--price', PRICE, '--json']);
    expect(off.stdout).not.toContain('costChoice');
  }, 120_000);

  it('needs --price', async () => {
    const result = await cli(['replay', FILE, '--cost-aware']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--cost-aware needs --price/);
  });
});
