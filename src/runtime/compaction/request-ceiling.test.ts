import { describe, expect, it } from 'vitest';
import type { EventsSummarizer } from '../../compaction/types.js';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { MessageTooLargeError } from '../errors.js';
import { Runner } from '../turn/runner.js';
import { estimateRequestOverhead, measureView } from './context-guard.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };
const ceiling = 200_000;

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** Request bytes as the runtime measures them: contents as JSON + instruction + tools. */
function requestBytes(request: Omit<ModelRequest, 'signal'>): number {
  const overhead = estimateRequestOverhead({
    systemInstruction: request.systemInstruction,
    tools: request.tools,
  });
  return measureView({ events: [], contents: request.contents, warnings: [] }, overhead).bytes;
}

async function setup() {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  return sessionService;
}

describe('maxRequestBytes holds for every request', () => {
  it('a 5 MB summary is cut in the view, not sent: every request stays under a 200 kB ceiling', async () => {
    const sessionService = await setup();
    const hugeSummary = `GOAL: fix checkout. ${'decision; '.repeat(500_000)} NEXT: deploy.`;
    const summarizer: EventsSummarizer = {
      name: 'verbose',
      summarize: async () => ({ content: { role: 'model', parts: [{ text: hugeSummary }] } }),
    };
    const answer = (turn: number) => textResponse(`turn ${turn}: ${'finding '.repeat(2000)}`);
    const model = new ScriptedModel({ script: [0, 1, 2, 3, 4].map(answer) });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model, instruction: 'Investigate.' }),
      sessionService,
      compaction: { tokenThreshold: 5_000, eventRetentionSize: 1, maxRequestBytes: ceiling },
      summarizer,
      logger: false,
    });
    for (let turn = 0; turn < 5; turn++) {
      await collect(runner.run({ ...key, newMessage: `question ${turn}` }));
    }
    expect(model.calls).toHaveLength(5);
    const sizes = model.calls.map(requestBytes);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(ceiling);
    // The summary reached the model, cut with a marker naming where it is whole.
    const { checkpoint } = await sessionService.loadView(key);
    expect(getText(checkpoint?.actions.compaction.compactedContent)).toBe(hugeSummary);
    const first = model.calls.at(-1)!.contents[0]!.parts[0]!.text!;
    expect(first.startsWith(`${SUMMARY_PREFIX}GOAL: fix checkout.`)).toBe(true);
    expect(first.endsWith('NEXT: deploy.')).toBe(true);
    expect(first).toContain('the whole summary is stored in compaction event');
  });
});

describe("the user's new message", () => {
  it('is sent whole when it is over the token threshold but under every ceiling', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({
      script: [textResponse('short'), textResponse('read it all')],
    });
    const summarizer: EventsSummarizer = {
      name: 'tiny',
      summarize: async () => ({ content: { role: 'model', parts: [{ text: 'a summary' }] } }),
    };
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 1_000, eventRetentionSize: 0 },
      summarizer,
      logger: false,
    });
    await collect(runner.run({ ...key, newMessage: 'hello' }));
    const big = `PASTE ${'log line 200 OK\n'.repeat(3_000)} END`;
    await collect(runner.run({ ...key, newMessage: big }));
    const request = model.calls[1]!;
    const texts = request.contents.flatMap((content) => content.parts.map((part) => part.text));
    expect(texts).toContain(big);
  });

  it('over maxRequestBytes fails the turn with MessageTooLargeError saying by how much; it stays stored', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [textResponse('never')] });
    const summarizer: EventsSummarizer = {
      name: 'tiny',
      summarize: async () => ({ content: { role: 'model', parts: [{ text: 'a summary' }] } }),
    };
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 1_000, eventRetentionSize: 0, maxRequestBytes: ceiling },
      summarizer,
      logger: false,
    });
    const message = 'm'.repeat(2 * 1024 * 1024);
    const error = await collect(runner.run({ ...key, newMessage: message })).catch(
      (caught: unknown) => caught,
    );
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    const tooLarge = error as MessageTooLargeError;
    expect(tooLarge).toMatchObject({ unit: 'bytes', limit: ceiling, seq: 1 });
    expect(tooLarge.size).toBeGreaterThan(2 * 1024 * 1024);
    expect(tooLarge.message).toMatch(
      new RegExp(`over maxRequestBytes=${ceiling} by ${tooLarge.size - ceiling} bytes`),
    );
    expect(model.calls).toHaveLength(0);
    const stored = (await sessionService.listEvents(key)).events;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.content?.parts[0]?.text).toBe(message);
  });

  it("over the model's context window fails the same way, in tokens", async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [], contextWindowTokens: 10_000 });
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 8_000, eventRetentionSize: 0 },
      summarizer: { name: 'none', summarize: async () => null },
      logger: false,
    });
    const error = await collect(runner.run({ ...key, newMessage: 'word '.repeat(100_000) })).catch(
      (caught: unknown) => caught,
    );
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ unit: 'tokens', limit: 10_000 });
    expect(model.calls).toHaveLength(0);
  });
});
