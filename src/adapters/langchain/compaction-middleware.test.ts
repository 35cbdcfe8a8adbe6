import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import type { Event } from '../../events/types.js';
import type { CompactionReport } from '../../runtime/compaction/compactor.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import { compactionMiddleware } from './compaction-middleware.js';
import { findOrphans, ScriptedChatModel } from './test-helpers/scripted-chat-model.js';

async function allEvents(service: SessionService, sessionId: string): Promise<Event[]> {
  const events: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await service.listEvents({
      appName: 'langchain',
      userId: 'anonymous',
      sessionId,
      afterSeq,
      limit: 100,
    });
    events.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) return events;
    afterSeq = page.nextCursor;
  }
}

function setup() {
  const sessionService = new InMemorySessionService();
  const reports: CompactionReport[] = [];
  const model = new ScriptedChatModel({});
  const lookup = tool(async ({ query }) => `Result for ${query}: ${'facts '.repeat(10)}`, {
    name: 'lookup',
    description: 'Looks a question up.',
    schema: z.object({ query: z.string() }),
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: 'Answer with the tool.',
    checkpointer: new MemorySaver(),
    middleware: [
      compactionMiddleware({
        sessionService,
        compaction: { tokenThreshold: 600, eventRetentionSize: 4 },
        summarizer: new DigestSummarizer({ maxChars: 400 }),
        onCompaction: (report) => reports.push(report),
        logger: false,
      }),
    ],
  });
  return { sessionService, reports, model, agent };
}

describe('compactionMiddleware in a LangChain agent', () => {
  it('compacts the request while the state keeps every message, with no orphan sent', async () => {
    const { sessionService, reports, model, agent } = setup();
    const config = { configurable: { thread_id: 'thread-1' } };
    const turns = 20;
    let state: { messages: unknown[] } = { messages: [] };
    for (let turn = 1; turn <= turns; turn++) {
      state = await agent.invoke(
        { messages: [new HumanMessage(`Question number ${turn}, please look it up.`)] },
        config,
      );
    }

    // The state keeps every message: user, call, result and answer of each turn.
    expect(state.messages).toHaveLength(turns * 4);

    expect(model.requests).toHaveLength(turns * 2);
    expect(model.requests.flatMap((messages, index) => findOrphans(messages, index))).toEqual([]);
    const compacted = reports.filter((report) => report.outcome === 'compacted');
    expect(compacted.length).toBeGreaterThanOrEqual(2);

    // Requests carry the summary first once compacted, and stay bounded while the state grows.
    // The model gets the system prompt, then the summary as the first human message.
    const last = model.requests.at(-1)!;
    expect(SystemMessage.isInstance(last[0])).toBe(true);
    expect(HumanMessage.isInstance(last[1])).toBe(true);
    expect(String(last[1]!.content).startsWith(SUMMARY_PREFIX)).toBe(true);
    const lengths = model.requests.map((messages) => messages.length);
    const firstSummarized = model.requests.findIndex((messages) =>
      String(messages[1]?.content).startsWith(SUMMARY_PREFIX),
    );
    // 21 requests (up to 42 messages) before the first compaction. After it a request grows
    // until its estimate reaches the 600-token threshold again, so how many messages fit depends
    // on the summary's size: measured, the digest is 305 characters (~200 tokens after each
    // compaction) and leaves room for 36; before c967f8b it was 424 (~235 tokens), leaving 32.
    // The bound that matters is in tokens: every compaction brings the request well under the
    // threshold and fires within one step of it.
    expect(firstSummarized).toBe(21);
    expect(Math.max(...lengths.slice(firstSummarized))).toBeLessThanOrEqual(36);
    for (const report of compacted) {
      expect(report.ineffective).not.toBe(true);
      expect(report.tokensAfter).toBeLessThan(300);
      expect(report.tokensBefore).toBeLessThan(700);
    }
    // The tail is the state's own message objects (ids and tool call ids kept).
    expect(last.at(-1)).toBe(state.messages.at(-2));

    // The store holds the whole conversation and the summaries.
    const events = await allEvents(sessionService, 'thread-1');
    expect(events.filter((event) => event.content)).toHaveLength(turns * 4);
    expect(events.filter((event) => event.actions.compaction)).toHaveLength(compacted.length);
  });

  it('sends the state unchanged until the first compaction', async () => {
    const { model, agent, reports } = setup();
    const config = { configurable: { thread_id: 'thread-2' } };
    await agent.invoke({ messages: [new HumanMessage('Only question.')] }, config);
    expect(reports.every((report) => report.outcome !== 'compacted')).toBe(true);
    // The system prompt, the question; then also the call and its result.
    expect(model.requests.map((messages) => messages.length)).toEqual([2, 4]);
    expect(String(model.requests[0]![1]!.content)).toBe('Only question.');
  });

  it('keeps threads apart', async () => {
    const { sessionService, agent } = setup();
    await agent.invoke(
      { messages: [new HumanMessage('Thread A.')] },
      { configurable: { thread_id: 'a' } },
    );
    await agent.invoke(
      { messages: [new HumanMessage('Thread B.')] },
      { configurable: { thread_id: 'b' } },
    );
    expect(
      (await allEvents(sessionService, 'a')).map((event) => event.content?.parts[0]?.text)[0],
    ).toBe('Thread A.');
    expect(
      (await allEvents(sessionService, 'b')).map((event) => event.content?.parts[0]?.text)[0],
    ).toBe('Thread B.');
  });

  it('names the missing thread id (LangChain wraps it in its MiddlewareError)', async () => {
    const { agent } = setup();
    await expect(agent.invoke({ messages: [new HumanMessage('No thread.')] })).rejects.toSatisfy(
      (error) =>
        error instanceof Error &&
        AdapterOptionError.isInstance(error.cause) &&
        error.cause.field === 'config.configurable.thread_id',
    );
  });
});
