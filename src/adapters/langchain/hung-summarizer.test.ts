import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { hungSummarizer, timed } from '../../runtime/test-helpers/hung-summarizer.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { orreryCompactionMiddleware } from './compaction-middleware.js';
import { ScriptedChatModel } from './test-helpers/scripted-chat-model.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('orreryCompactionMiddleware with a runaway summarizer (default 120 s timeout)', () => {
  it('one model call waits one timeout; the next calls and turns do not', async () => {
    vi.useFakeTimers();
    const summarizer = hungSummarizer();
    const reports: CompactionReport[] = [];
    const lookup = tool(async ({ query }) => `Result for ${query}: ${'facts '.repeat(60)}`, {
      name: 'lookup',
      description: 'Looks a question up.',
      schema: z.object({ query: z.string() }),
    });
    const agent = createAgent({
      model: new ScriptedChatModel({}),
      tools: [lookup],
      systemPrompt: 'Answer with the tool.',
      checkpointer: new MemorySaver(),
      middleware: [
        orreryCompactionMiddleware({
          sessionService: new InMemorySessionService(),
          compaction: { tokenThreshold: 300, eventRetentionSize: 2 },
          summarizer,
          fallbackSummarizer: null,
          onCompaction: (report) => reports.push(report),
          logger: false,
        }),
      ],
    });
    const config = { configurable: { thread_id: 'thread-hung' } };
    const durationsMs: number[] = [];
    const callsPerTurn: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const before = summarizer.calls;
      durationsMs.push(
        await timed(() =>
          agent.invoke({ messages: [new HumanMessage(`Question ${turn}, look it up.`)] }, config),
        ),
      );
      callsPerTurn.push(summarizer.calls - before);
    }
    // Before the cool-down: 120 s for every model call over the threshold.
    expect(callsPerTurn.reduce((sum, calls) => sum + calls, 0)).toBe(1);
    expect(durationsMs.reduce((sum, ms) => sum + ms, 0)).toBe(120_000);
    expect(
      reports.filter((report) => report.coolDown && 'cause' in report.coolDown).length,
    ).toBeGreaterThan(3);
  });
});
