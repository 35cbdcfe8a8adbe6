import type { AgentInputItem } from '@openai/agents';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { hungSummarizer, timed } from '../../runtime/test-helpers/hung-summarizer.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { OrreryAgentsSession } from './orrery-agents-session.js';

afterEach(() => {
  vi.useRealTimers();
});

function turnItems(turn: number): AgentInputItem[] {
  return [
    { role: 'user', content: `Question ${turn}` },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: `Answer ${turn}: ${'facts '.repeat(200)}` }],
    },
  ] as AgentInputItem[];
}

describe('OrreryAgentsSession with a runaway summarizer (default 120 s timeout)', () => {
  it('one turn waits one timeout; the next turns (and their getItems) do not wait', async () => {
    vi.useFakeTimers();
    const summarizer = hungSummarizer();
    const reports: CompactionReport[] = [];
    const session = new OrreryAgentsSession({
      sessionService: new InMemorySessionService(),
      sessionId: 'hung',
      compaction: {
        tokenThreshold: 200,
        eventRetentionSize: 0,
        compactionInterval: 1,
        overlapSize: 0,
      },
      summarizer,
      fallbackSummarizer: null,
      onCompaction: (report) => reports.push(report),
      logger: false,
    });
    const durationsMs: number[] = [];
    const callsPerTurn: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const before = summarizer.calls;
      durationsMs.push(
        await timed(async () => {
          // What the Agents Runner does in a turn: read, store, compact; the next turn's read
          // queues behind this compaction.
          await session.getItems();
          await session.addItems(turnItems(turn));
          const compacting = session.runCompaction();
          await session.getItems();
          await compacting;
        }),
      );
      callsPerTurn.push(summarizer.calls - before);
    }
    // Before the cool-down: 240 s every turn (the token trigger, then the sliding window).
    expect(durationsMs).toEqual([120_000, 0, 0, 0, 0, 0]);
    expect(callsPerTurn).toEqual([1, 0, 0, 0, 0, 0]);
    expect(reports.filter((report) => report.coolDown && 'cause' in report.coolDown).length).toBe(
      11,
    );
  });
});
