/**
 * The same cases against all four frameworks (the real host libraries, scripted models), so a
 * behaviour of the adapter core cannot drift between adapters again
 * (docs/architecture.md#the-adapter-core).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Event, NewEvent } from '../../../events/types.js';
import type { CompactionReport } from '../../../runtime/compaction/compactor.js';
import { hungSummarizer, timed } from '../../../runtime/test-helpers/hung-summarizer.js';
import { InMemorySessionService } from '../../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../../summarizers/digest-summarizer.js';
import { adkFramework } from '../../adk/test-helpers/adk-harness.js';
import { aiSdkFramework } from '../../ai-sdk/test-helpers/ai-sdk-harness.js';
import { langChainFramework } from '../../langchain/test-helpers/langchain-harness.js';
import { agentsFramework } from '../../openai-agents/test-helpers/agents-harness.js';
import type { AdapterHarness, FrameworkUnderTest } from './harness.js';

const frameworks: FrameworkUnderTest[] = [
  aiSdkFramework,
  langChainFramework,
  agentsFramework,
  adkFramework,
];

const COMPACTION = {
  tokenThreshold: 300,
  eventRetentionSize: 2,
  compactionInterval: 2,
  overlapSize: 0,
};

/** A store whose appends of summaries fail (the messages themselves are stored). */
class FailingSummaryStore extends InMemorySessionService {
  override async appendCompaction(): Promise<never> {
    throw new Error('store down for summaries');
  }

  override async appendEvent(options: Parameters<InMemorySessionService['appendEvent']>[0]) {
    const event: NewEvent = options.event;
    if (event.actions?.compaction) throw new Error('store down for summaries');
    return super.appendEvent(options);
  }
}

function userTexts(events: readonly Event[]): string[] {
  return events
    .filter((event) => event.author === 'user')
    .flatMap((event) => event.content?.parts.map((part) => part.text ?? '') ?? [])
    .filter((text) => text.startsWith('Question'));
}

async function turns(harness: AdapterHarness, conversation: string, count: number) {
  for (let turn = 1; turn <= count; turn++) {
    await harness.turn({ conversation, text: `Question ${turn} of ${conversation}, look it up.` });
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe.each(frameworks)('adapter scenarios: $name', (framework) => {
  it('recall: after compacting, the store still holds every message of the conversation', async () => {
    const sessionService = new InMemorySessionService();
    const reports: CompactionReport[] = [];
    const harness = framework.create({
      sessionService,
      compaction: COMPACTION,
      summarizer: new DigestSummarizer(),
      onCompaction: (report) => reports.push(report),
    });
    await turns(harness, 'recall', 5);
    const key = harness.key('recall');
    const { events } = await sessionService.listEvents({ ...key, limit: 1000 });
    expect(userTexts(events)).toEqual(
      [1, 2, 3, 4, 5].map((turn) => `Question ${turn} of recall, look it up.`),
    );
    expect(reports.some((report) => report.outcome === 'compacted')).toBe(true);
    const view = await sessionService.loadView({ ...key });
    expect(view.checkpoint).toBeDefined();
  });

  it('store failure: a summary the store refuses fails no turn and is reported', async () => {
    const sessionService = new FailingSummaryStore();
    const reports: CompactionReport[] = [];
    const harness = framework.create({
      sessionService,
      compaction: COMPACTION,
      summarizer: new DigestSummarizer(),
      onCompaction: (report) => reports.push(report),
    });
    await turns(harness, 'store', 4);
    expect(reports.some((report) => report.outcome === 'failed')).toBe(true);
    const { events } = await sessionService.listEvents({ ...harness.key('store'), limit: 1000 });
    expect(userTexts(events)).toHaveLength(4);
  });

  it('hung summarizer: one timeout, then the cool-down; every turn completes', async () => {
    vi.useFakeTimers();
    const summarizer = hungSummarizer();
    const reports: CompactionReport[] = [];
    const harness = framework.create({
      sessionService: new InMemorySessionService(),
      compaction: COMPACTION,
      summarizer,
      onCompaction: (report) => reports.push(report),
    });
    for (let turn = 1; turn <= 5; turn++) {
      await timed(() =>
        harness.turn({ conversation: 'hung', text: `Question ${turn}, look it up.` }),
      );
    }
    expect(summarizer.calls).toBe(1);
    expect(reports.find((report) => report.outcome === 'failed')?.reason).toMatch(
      /timed out|timeout/i,
    );
    // The later attempts of every framework wait out the cool-down instead of the summarizer.
    expect(
      reports.filter((report) => report.coolDown && 'cause' in report.coolDown).length,
    ).toBeGreaterThan(0);
  });

  it('concurrent steps: two conversations at once each store only their own turns', async () => {
    const sessionService = new InMemorySessionService();
    const harness = framework.create({
      sessionService,
      compaction: COMPACTION,
      summarizer: new DigestSummarizer(),
      onCompaction: () => {},
    });
    await Promise.all([turns(harness, 'left', 3), turns(harness, 'right', 3)]);
    for (const conversation of ['left', 'right']) {
      const { events } = await sessionService.listEvents({
        ...harness.key(conversation),
        limit: 1000,
      });
      expect(userTexts(events)).toEqual(
        [1, 2, 3].map((turn) => `Question ${turn} of ${conversation}, look it up.`),
      );
    }
  });

  it('overflow: a request refused for size is compacted and sent once more (or reaches the app)', async () => {
    const reports: CompactionReport[] = [];
    const harness = framework.create({
      sessionService: new InMemorySessionService(),
      compaction: { ...COMPACTION, tokenThreshold: 100_000 },
      summarizer: new DigestSummarizer(),
      onCompaction: (report) => reports.push(report),
    });
    await turns(harness, 'overflow', 3);
    const before = harness.requests();
    harness.refuseNextForSize();
    const turn = harness.turn({ conversation: 'overflow', text: 'Question 4, look it up.' });
    if (framework.retriesOverflow) {
      await turn;
      expect(reports.map((report) => report.trigger)).toContain('overflow');
      // The refused request, its retry, then the rest of the tool loop.
      expect(harness.requests() - before).toBeGreaterThanOrEqual(3);
    } else {
      await expect(turn).rejects.toThrow(/context/);
      expect(reports.map((report) => report.trigger)).not.toContain('overflow');
    }
  });
});
