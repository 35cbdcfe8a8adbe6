import { describe, expect, it } from 'vitest';
import { createEventsCompactionConfig, resolveSummarizerModel } from './config.js';
import { InvalidConfigError } from './errors.js';

describe('compaction.costAware', () => {
  it('is kept checked, and off when false or unset', () => {
    const on = createEventsCompactionConfig({
      env: {},
      tokenThreshold: 30_000,
      costAware: { price: ' anthropic:claude-sonnet-4-5 ' },
    });
    expect(on?.costAware).toEqual({ price: 'anthropic:claude-sonnet-4-5' });
    const off = createEventsCompactionConfig({ env: {}, tokenThreshold: 30_000, costAware: false });
    expect(off).not.toHaveProperty('costAware');
  });

  it('names the bad field and value', () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'costAware.price'],
      [{ price: 'sonnet' }, 'costAware.price'],
      [{ price: 'anthropic:claude-sonnet-4-5', summarizerPrice: 3 }, 'costAware.summarizerPrice'],
      [{ price: 'anthropic:claude-sonnet-4-5', prce: 'x' }, 'costAware.prce'],
      ['anthropic:claude-sonnet-4-5', 'costAware'],
    ];
    for (const [costAware, field] of cases) {
      const attempt = () =>
        createEventsCompactionConfig({
          env: {},
          tokenThreshold: 30_000,
          costAware: costAware as never,
        });
      expect(attempt).toThrow(InvalidConfigError);
      try {
        attempt();
      } catch (error) {
        expect((error as InvalidConfigError).field).toBe(field);
      }
    }
  });

  it('needs the token trigger', () => {
    expect(() =>
      createEventsCompactionConfig({
        env: {},
        tokenThreshold: 0,
        compactionInterval: 5,
        costAware: { price: 'anthropic:claude-sonnet-4-5' },
      }),
    ).toThrow(/token trigger/);
  });

  it("makes the provider's smaller model the default summarizer, unless ORRERY_COMPACTION_MODEL names one", () => {
    const agent = 'anthropic:claude-sonnet-4-5';
    expect(resolveSummarizerModel({ agentModelId: agent, env: {} })).toBe(agent);
    expect(resolveSummarizerModel({ agentModelId: agent, env: {}, costAware: true })).toBe(
      'anthropic:claude-haiku-4-5',
    );
    expect(resolveSummarizerModel({ agentModelId: 'openai:gpt-5', env: {}, costAware: true })).toBe(
      'openai:gpt-5-mini',
    );
    expect(
      resolveSummarizerModel({ agentModelId: 'ollama:qwen2.5:7b', env: {}, costAware: true }),
    ).toBe('ollama:qwen2.5:7b');
    expect(
      resolveSummarizerModel({
        agentModelId: agent,
        env: { ORRERY_COMPACTION_MODEL: 'anthropic:claude-opus-4-1' },
        costAware: true,
      }),
    ).toBe('anthropic:claude-opus-4-1');
  });
});
