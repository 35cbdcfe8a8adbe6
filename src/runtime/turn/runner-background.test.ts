import { describe, expect, it } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** A summarizer that answers only when released (or fails when its signal aborts). */
function gatedSummarizer() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const summarizer: EventsSummarizer = {
    name: 'gated',
    async summarize() {
      started();
      await gate;
      return { content: { role: 'model', parts: [{ text: 'summary' }] } };
    },
  };
  return { summarizer, release, running };
}

describe('Runner background compaction', () => {
  it('a run aborted while it waits for the previous background compaction stops at once', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const { summarizer, release, running } = gatedSummarizer();
    const model = new ScriptedModel({
      script: [textResponse('first answer', { promptTokenCount: 500 }), textResponse('second')],
    });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 1 },
      summarizer,
      logger: false,
      background: true,
    });
    await collect(runner.run({ userId: key.userId, sessionId: key.sessionId, newMessage: 'one' }));
    await running;

    const controller = new AbortController();
    const second = collect(
      runner.run({
        userId: key.userId,
        sessionId: key.sessionId,
        newMessage: 'two',
        signal: controller.signal,
      }),
    );
    const settled = second.then(
      () => 'resolved',
      (error: unknown) => (error as Error).name,
    );
    controller.abort();
    // Settles while the compaction is still held (before release): a run that kept waiting
    // would never settle here, and the test's timeout would report it.
    const outcome = await settled;
    release();
    expect(outcome).toBe('AbortError');
    await runner.flush();
    // The aborted run stored nothing; the background compaction still landed.
    const stored = await sessionService.listEvents(key);
    expect(stored.events.map((event) => event.content?.parts[0]?.text ?? 'compaction')).toEqual([
      'one',
      'first answer',
      'compaction',
    ]);
    expect(model.remaining).toBe(1);
  });
});
