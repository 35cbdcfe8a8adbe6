import { describe, expect, it } from 'vitest';
import { effectiveSettings, thresholdLine } from './effective-settings.js';

describe('effectiveSettings', () => {
  it('names the default, the variable or the flag behind each value', () => {
    const settings = effectiveSettings({
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '12345', ORRERY_DB: 'postgres://app:hunter2@db/x' },
      flags: { model: 'openai:gpt-4o-mini', user: 'ana' },
    });
    expect(settings.tokenThreshold).toEqual({
      value: 12345,
      source: 'env',
      from: 'ORRERY_COMPACTION_TOKEN_THRESHOLD',
    });
    expect(settings.eventRetentionSize).toEqual({ value: 10, source: 'default' });
    // The derived default follows the threshold in effect.
    expect(settings.retentionTokenBudget).toEqual({ value: 3086, source: 'default' });
    expect(settings.model).toEqual({
      value: 'openai:gpt-4o-mini',
      source: 'flag',
      from: '--model',
    });
    expect(settings.summarizerModel).toEqual({ value: 'openai:gpt-4o-mini', source: 'default' });
    expect(settings.db).toEqual({
      value: 'postgres://app:***@db/x',
      source: 'env',
      from: 'ORRERY_DB',
    });
    expect(settings.appName).toEqual({ value: 'orrery', source: 'default' });
    expect(settings.userId).toEqual({ value: 'ana', source: 'flag', from: '--user' });
    expect(thresholdLine(settings)).toBe(
      'token threshold 12,345 tokens (env: ORRERY_COMPACTION_TOKEN_THRESHOLD)',
    );
  });

  it("an agent module's compaction replaces the variables, and says which it hides", () => {
    const settings = effectiveSettings({
      env: { ORRERY_COMPACTION_TOKEN_THRESHOLD: '12345', ORRERY_COMPACTION_OVERLAP: '3' },
      agent: {
        appName: 'helper',
        modelId: 'google:gemini-2.5-flash',
        compaction: { tokenThreshold: 60_000, eventRetentionSize: 8 },
        hasSummarizer: false,
      },
      flags: {},
    });
    expect(settings.tokenThreshold).toEqual({
      value: 60_000,
      source: 'agent',
      ignored: ['ORRERY_COMPACTION_TOKEN_THRESHOLD=12345'],
    });
    expect(settings.overlapSize).toEqual({
      value: null,
      source: 'default',
      ignored: ['ORRERY_COMPACTION_OVERLAP=3'],
    });
    expect(settings.enabled?.ignored).toEqual([
      'ORRERY_COMPACTION_TOKEN_THRESHOLD=12345',
      'ORRERY_COMPACTION_OVERLAP=3',
    ]);
    expect(settings.summarizerModel).toEqual({
      value: 'google:gemini-flash-latest',
      source: 'default',
    });
    expect(settings.appName).toEqual({ value: 'helper', source: 'agent' });
    expect(thresholdLine(settings)).toBe(
      'token threshold 60,000 tokens (the agent module; ignores ORRERY_COMPACTION_TOKEN_THRESHOLD=12345)',
    );
  });

  it('compaction off: the line says so and where from', () => {
    const settings = effectiveSettings({ env: { ORRERY_CONTEXT_COMPACTION: 'off' }, flags: {} });
    expect(settings.enabled).toEqual({
      value: false,
      source: 'env',
      from: 'ORRERY_CONTEXT_COMPACTION',
    });
    expect(thresholdLine(settings)).toBe('compaction off (env: ORRERY_CONTEXT_COMPACTION)');
  });
});
