import { describe, expect, it } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { adapterSummarizers, afterTurnTriggers, attemptCompaction } from './adapter-compaction.js';
import { AdapterOptionError } from './adapter-option-error.js';
import { checkCompactionGiven, checkName, checkSessionService } from './adapter-options.js';

const own: EventsSummarizer = { name: 'own', summarize: async () => null };

describe('adapter compaction setup', () => {
  it('defaults to a DigestSummarizer with no fallback, else falls back to one', () => {
    const digest = adapterSummarizers({ config: {} });
    expect(digest.summarizer).toBeInstanceOf(DigestSummarizer);
    expect(digest.fallbackSummarizer).toBeUndefined();
    const mine = adapterSummarizers({ config: {}, summarizer: own });
    expect(mine.summarizer).toBe(own);
    expect(mine.fallbackSummarizer).toBeInstanceOf(DigestSummarizer);
    expect(adapterSummarizers({ config: {}, summarizer: own, fallbackSummarizer: null })).toEqual({
      summarizer: own,
      fallbackSummarizer: undefined,
    });
  });

  it('turns a thrown attempt into a failed report, except the caller’s abort', async () => {
    const error = new Error('store down');
    const report = await attemptCompaction({
      sessionId: 's-1',
      trigger: 'token_threshold',
      attempt: () => Promise.reject(error),
    });
    expect(report).toMatchObject({
      sessionId: 's-1',
      trigger: 'token_threshold',
      outcome: 'failed',
      reason: 'store down',
      error,
    });
    const controller = new AbortController();
    controller.abort();
    await expect(
      attemptCompaction({
        sessionId: 's-1',
        trigger: 'overflow',
        signal: controller.signal,
        attempt: () => Promise.reject(error),
      }),
    ).rejects.toBe(error);
  });

  it('runs the token threshold, then the sliding window, when configured', () => {
    expect(afterTurnTriggers({ tokenThreshold: 100, compactionInterval: 3 })).toEqual([
      'token_threshold',
      'sliding_window',
    ]);
    expect(afterTurnTriggers({ compactionInterval: 3 })).toEqual(['sliding_window']);
  });

  it('names the bad option', () => {
    expect(() => checkName('userId', '')).toThrow(AdapterOptionError);
    expect(() => checkName('userId', undefined)).not.toThrow();
    expect(() => checkSessionService({ sessionService: {} })).toThrow(/sessionService/);
    expect(() => checkCompactionGiven(undefined)).toThrow(/compaction/);
    expect(() => checkCompactionGiven(null)).not.toThrow();
  });
});
