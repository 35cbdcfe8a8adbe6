import { describe, expect, it } from 'vitest';
import { getFunctionResponses } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { renderEvent } from '../../summarizers/render.js';
import {
  ScriptedModel,
  type ScriptStep,
  textResponse,
  toolCallResponse,
} from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner, type RunnerOptions } from '../turn/runner.js';
import type { RecallResult } from './recall-tool.js';

const appName = 'recall';
const userId = 'u';
const key = { appName, userId, sessionId: 's' };
const fact = 'The staging gateway listens on port 8443, decided with Priya on Monday.';

async function collect(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events) {
    // drain
  }
}

function toolNames(request: ModelRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.name);
}

/** The response the model got for its call `id`, from the request that followed the call. */
function responseIn(request: ModelRequest | undefined, id: string): RecallResult {
  for (const content of request?.contents ?? []) {
    for (const part of content.parts) {
      if (part.functionResponse?.id === id)
        return part.functionResponse.response as unknown as RecallResult;
    }
  }
  throw new Error(`no response to ${id} in the request`);
}

async function setup(options: {
  runner?: Partial<RunnerOptions>;
  agentRecall?: boolean;
  script: ScriptStep[];
}) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const model = new ScriptedModel({ script: options.script });
  const runner = new Runner({
    appName,
    agent: new LlmAgent({ name: 'agent', model, recall: options.agentRecall }),
    sessionService,
    compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
    summarizer: new DigestSummarizer(),
    logger: false,
    ...options.runner,
  });
  return { sessionService, model, runner };
}

describe('the recall tool', () => {
  it('gives the model the exact original event after a compaction replaced it', async () => {
    const { sessionService, model, runner } = await setup({
      script: [
        textResponse(`Noted. ${'I will keep that in mind. '.repeat(60)}`),
        toolCallResponse([{ id: 'q1', name: 'recall', args: { query: 'staging gateway port' } }]),
        toolCallResponse([{ id: 'r1', name: 'recall', args: { fromSeq: 1, toSeq: 1 } }]),
        textResponse('Port 8443.'),
      ],
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: fact }));
    const { checkpoint } = await sessionService.loadView(key);
    expect(checkpoint?.actions.compaction.endSeq).toBeGreaterThanOrEqual(1);
    const original = (await sessionService.listEvents({ ...key, limit: 1 })).events[0] as Event;

    await collect(runner.run({ userId, sessionId: 's', newMessage: 'Which port was it?' }));
    expect(toolNames(model.calls[1])).toContain('recall');
    // The summary no longer holds the sentence verbatim; recall brings it back, labelled.
    const byQuery = responseIn(model.calls[2], 'q1');
    expect(byQuery.compactedThroughSeq).toBe(checkpoint?.actions.compaction.endSeq);
    const date = new Date(original.timestamp * 1000).toISOString();
    // The hit and the events after it that the summary covers (its context), in seq order.
    const passage = byQuery.passages?.[0];
    expect(passage?.fromSeq).toBe(1);
    expect(passage?.items[0]).toEqual({
      seq: 1,
      author: 'user',
      date,
      text: renderEvent({ event: original }),
      hit: true,
    });
    expect(passage?.items[0]?.text).toContain(fact);
    expect(passage?.items.slice(1).every((item) => item.hit === undefined)).toBe(true);
    const byRange = responseIn(model.calls[3], 'r1');
    expect(byRange.items).toEqual([
      { seq: 1, author: 'user', date, text: renderEvent({ event: original }) },
    ]);
    // An ordinary tool response: stored, so the record holds what the model was shown.
    const stored = (await sessionService.getSession({ ...key, events: 'full' }))?.events ?? [];
    const responses = stored.flatMap((event) => getFunctionResponses(event));
    expect(responses.map((response) => response.name)).toEqual(['recall', 'recall']);
  });

  /** Two runs: the first one's answer is long enough to be compacted after it. */
  async function toolsOfSecondRun(setupOptions: Omit<Parameters<typeof setup>[0], 'script'>) {
    const { model, runner } = await setup({
      ...setupOptions,
      script: [
        textResponse(`Noted. ${'I will keep that in mind. '.repeat(60)}`),
        textResponse('ok'),
      ],
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: fact }));
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'and now?' }));
    return model.calls.map((call) => call.tools?.map((tool) => [tool.name, tool.description]));
  }

  it('is offered once a summary exists, never with compaction off or for an agent that opts out', async () => {
    const [first, second] = await toolsOfSecondRun({});
    expect(first).toBeUndefined(); // nothing to recall before the first compaction
    expect(second?.map(([name]) => name)).toEqual(['recall']);
    expect(await toolsOfSecondRun({ runner: { compaction: null } })).toEqual([
      undefined,
      undefined,
    ]);
    expect(await toolsOfSecondRun({ agentRecall: false })).toEqual([undefined, undefined]);
    expect(await toolsOfSecondRun({ runner: { recall: false } })).toEqual([undefined, undefined]);
    const renamed = await toolsOfSecondRun({
      runner: { recall: { name: 'look_back', description: 'Read earlier turns.' } },
    });
    expect(renamed[1]).toEqual([['look_back', 'Read earlier turns.']]);
  });
});
