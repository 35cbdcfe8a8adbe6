import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { generateRecallConversations } from '../../testing/recall-conversations.js';
import { Compactor } from '../compaction/compactor.js';
import { replayTranscript } from './replay.js';

describe('replay with the elision tier', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('records rules, stays lossless and provider-safe, and keeps requests bounded', async () => {
    const [conversation] = generateRecallConversations({ seed: 3, conversations: 1 });
    const run = async (elision: boolean) => {
      const sessionService = new InMemorySessionService();
      const report = await replayTranscript({
        events: conversation!.events,
        config: {
          tokenThreshold: 8000,
          eventRetentionSize: 4,
          ...(elision ? { elision: {} } : {}),
        },
        summarizer: new DigestSummarizer(),
        sessionService,
        sessionId: 'replay',
      });
      const key = { appName: 'orrery', userId: 'replay', sessionId: 'replay' };
      const history = (await sessionService.getSession({ ...key, events: 'full' }))?.events ?? [];
      return { report, rules: history.filter((event) => event.actions.elision).length };
    };
    const off = await run(false);
    const on = await run(true);
    expect(off.rules).toBe(0);
    expect(on.rules).toBeGreaterThan(0);
    expect(on.report.compactions.length).toBeLessThan(off.report.compactions.length);
    expect(on.report.lossless).toBe(true);
    expect(on.report.orphans).toBe(0);
    expect(on.report.modelCalls).toBe(off.report.modelCalls);
    // Each request is prepared under the threshold (plus what one step can add).
    expect(on.report.maxViewTokens).toBeLessThan(off.report.maxViewTokens * 1.5);
  });

  it('reports each rule, and its trigger check estimates with the rule applied', async () => {
    const [conversation] = generateRecallConversations({ seed: 3, conversations: 1 });
    const compact = Compactor.prototype.compact;
    const outcomes: string[] = [];
    vi.spyOn(Compactor.prototype, 'compact').mockImplementation(async function (
      this: Compactor,
      request,
    ) {
      const report = await compact.call(this, request);
      outcomes.push(report.outcome);
      return report;
    });
    const report = await replayTranscript({
      events: conversation!.events,
      config: { tokenThreshold: 8000, eventRetentionSize: 4, elision: {} },
      summarizer: new DigestSummarizer(),
      sessionId: 'replay',
    });
    const elided = outcomes.filter((outcome) => outcome === 'elided').length;
    expect(elided).toBeGreaterThan(0);
    expect(report.elisions ?? []).toHaveLength(elided);
    for (const elision of report.elisions ?? []) {
      expect(elision.tokensAfter).toBeLessThan(elision.tokensBefore);
      expect(elision.throughSeq).toBeGreaterThan(0);
      expect(elision.beforeCall).toBeGreaterThan(0);
    }
    // Estimated without the rule, the view stayed over the threshold and the Compactor was
    // called after every invocation only to skip (50 times on this conversation).
    expect(outcomes.filter((outcome) => outcome === 'skipped')).toEqual([]);
  });
});
