/** `orrery eval --price`: dollars beside retention. */
import { describe, expect, it } from 'vitest';
import { cli } from './in-process.js';

describe('orrery eval --price', () => {
  it('adds the cost of each group, with and without compaction', async () => {
    const args = ['eval', '--generate', '--conversations', '1', '--json'];
    const plain = JSON.parse((await cli(args)).stdout);
    expect(plain.groups[0].total.cost).toBeUndefined();

    const result = await cli([...args, '--price', 'anthropic:claude-sonnet-4-5']);
    expect(result.code).toBe(0);
    const priced = JSON.parse(result.stdout);
    expect(priced.price).toBe('anthropic:claude-sonnet-4-5');
    const cost = priced.groups[0].total.cost;
    expect(cost).toEqual({
      usd: expect.any(Number),
      usdWithoutCompaction: expect.any(Number),
      summarizerUsd: expect.any(Number),
      inputTokens: priced.groups[0].total.requestTokens,
      cacheReadTokens: expect.any(Number),
    });
    expect(cost.usd).toBeGreaterThan(0);
    // Retention figures are unchanged by pricing.
    expect(priced.groups[0].total.inView).toBe(plain.groups[0].total.inView);
  });

  it('prints USD columns in the table', async () => {
    const result = await cli([
      'eval',
      '--generate',
      '--conversations',
      '1',
      '--price',
      'openai:gpt-4o',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/USD w\/o/);
    expect(result.stdout).toMatch(/\$\d/);
  });
});
