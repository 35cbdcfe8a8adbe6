/** `orrery replay --price`: dollars with and without compaction, from the catalog's prices. */
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

const example = 'examples/incident-session.jsonl';

describe('orrery replay --price', () => {
  it('adds a cost object to --json with both sides and the summarizer', async () => {
    const result = await cli([
      'replay',
      example,
      '--threshold',
      '30000',
      '--price',
      'anthropic:claude-sonnet-4-5',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const side = {
      inputTokens: expect.any(Number),
      cacheReadTokens: expect.any(Number),
      cacheWriteTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      summarizerUsd: expect.any(Number),
      usd: expect.any(Number),
    };
    expect(report.cost).toEqual({
      model: 'anthropic:claude-sonnet-4-5',
      currency: 'USD',
      summarizerModel: 'anthropic:claude-sonnet-4-5',
      // The summarizer is the agent's model: priced on the agent's cached prefix.
      summarizerReusesAgentPrefix: true,
      cacheHints: true,
      withCompaction: side,
      withoutCompaction: side,
      compactions: report.compactions.map((compaction: { beforeCall: number }) => ({
        beforeCall: compaction.beforeCall,
        summarizerUsd: expect.any(Number),
        paybackCalls: expect.any(Number),
        callsAfter: report.modelCalls - compaction.beforeCall,
      })),
      perCallUsd: {
        withCompaction: expect.any(Array),
        withoutCompaction: expect.any(Array),
      },
    });
    // One price per model call on each side.
    expect(report.cost.perCallUsd.withCompaction).toHaveLength(report.modelCalls);
    expect(report.cost.perCallUsd.withoutCompaction).toHaveLength(report.modelCalls);
    // The report's own token sums are the prompt tokens priced.
    expect(report.cost.withCompaction.inputTokens).toBe(report.tokens.withCompaction);
    expect(report.cost.withoutCompaction.inputTokens).toBe(report.tokens.withoutCompaction);
    expect(report.cost.withCompaction.summarizerUsd).toBeGreaterThan(0);
    expect(report.cost.withoutCompaction.summarizerUsd).toBe(0);
  });

  it('prices the summarizer standalone when ORRERY_COMPACTION_REUSE_AGENT_PREFIX is off', async () => {
    const args = [
      'replay',
      example,
      '--threshold',
      '30000',
      '--price',
      'anthropic:claude-sonnet-4-5',
    ];
    const reused = JSON.parse((await cli([...args, '--json'])).stdout).cost;
    const off = await cli([...args, '--json'], {
      env: { ORRERY_COMPACTION_REUSE_AGENT_PREFIX: 'false' },
    });
    const standalone = JSON.parse(off.stdout).cost;
    expect(standalone.summarizerReusesAgentPrefix).toBe(false);
    // The agent's calls are the same; the summarizer reads its range uncached instead.
    expect(standalone.withCompaction.inputTokens).toBe(reused.withCompaction.inputTokens);
    expect(standalone.withCompaction.summarizerUsd).toBeGreaterThan(
      reused.withCompaction.summarizerUsd,
    );
    const human = await cli(args);
    expect(human.stdout).toContain(
      "summarizer at anthropic:claude-sonnet-4-5 on the agent's cached prefix",
    );
  });

  it('prints the dollars in the human report', async () => {
    const result = await cli(['replay', example, '--price', 'openai:gpt-4o']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Cost at openai:gpt-4o catalog prices');
    expect(result.stdout).toMatch(/with compaction +\$\d/);
    expect(result.stdout).toMatch(/\d+ of \d+ compactions repaid themselves within the session/);
  });

  it('refuses a model the catalog does not list, naming it', async () => {
    const result = await cli(['replay', example, '--price', 'anthropic:claude-imaginary-9']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('anthropic:claude-imaginary-9');
    expect(result.stdout).toBe('');
  });

  it('--summarizer-price alone is a usage error', async () => {
    const result = await cli(['replay', example, '--summarizer-price', 'openai:gpt-4o-mini']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--summarizer-price needs --price');
  });
});

describe('orrery replay --compare-thresholds', () => {
  it('replays at each threshold and names the cheapest with compaction', async () => {
    const result = await cli([
      'replay',
      example,
      '--price',
      'anthropic:claude-sonnet-4-5',
      '--compare-thresholds',
      '20000,30000',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.thresholds.map((row: { threshold: number }) => row.threshold)).toEqual([
      20_000, 30_000,
    ]);
    const usd = report.thresholds.map(
      (row: { withCompaction: { usd: number } }) => row.withCompaction.usd,
    );
    expect(report.cheapestThreshold).toBe(usd[0] <= usd[1] ? 20_000 : 30_000);
    // Each row is the same replay `--threshold N --price` gives.
    const single = JSON.parse(
      (
        await cli([
          'replay',
          example,
          '--threshold',
          '30000',
          '--price',
          'anthropic:claude-sonnet-4-5',
          '--json',
        ])
      ).stdout,
    );
    expect(report.thresholds[1].withCompaction).toEqual(single.cost.withCompaction);
    expect(report.thresholds[1].compactions).toBe(single.compactions.length);
  });

  it('needs --price, and refuses a bad list', async () => {
    const unpriced = await cli(['replay', example, '--compare-thresholds', '20000']);
    expect(unpriced.code).toBe(2);
    expect(unpriced.stderr).toContain('--compare-thresholds needs --price');
    const bad = await cli([
      'replay',
      example,
      '--price',
      'openai:gpt-4o',
      '--compare-thresholds',
      '20000,abc',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('20000,abc');
  });
});
