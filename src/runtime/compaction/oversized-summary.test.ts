import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventsSummarizer } from '../../compaction/types.js';
import type { Event } from '../../events/types.js';
import { ModelError } from '../../models/errors.js';
import type { Model, ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from '../turn/runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };
const maxRequestBytes = 400_000;

/** Three tool steps then an answer per turn; refuses requests over 240 kB as too long. */
function toolLoopModel(): Model & { requestBytes: number[]; refused: number } {
  let step = 0;
  const model = {
    modelId: 'loop',
    requestBytes: [] as number[],
    refused: 0,
    async generate(request: ModelRequest) {
      const bytes = JSON.stringify(request.contents).length;
      model.requestBytes.push(bytes);
      if (bytes > 240_000) {
        model.refused++;
        throw new ModelError({ kind: 'context_overflow', message: 'prompt is too long' });
      }
      step++;
      if (step % 4 !== 0) {
        return toolCallResponse([{ id: `call-${step}`, name: 'look', args: {} }], {
          promptTokenCount: 3_000 * (step % 4),
        });
      }
      return textResponse(`answer ${step}`, { promptTokenCount: 12_000 });
    },
  };
  return model;
}

async function compactions(sessionService: InMemorySessionService): Promise<Event[]> {
  const page = await sessionService.listEvents({ ...key, limit: 1_000 });
  return page.events.filter((event) => event.actions.compaction);
}

describe('a summary over maxRequestBytes by itself', () => {
  it('is stored once per turn, not once per model call: the view truncates it', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    let summaries = 0;
    // 2 MB whatever it is asked: a summarizer gone wrong.
    const summarizer: EventsSummarizer = {
      name: 'verbose',
      summarize: async () => {
        summaries++;
        return { content: { role: 'model', parts: [{ text: 'S '.repeat(1_000_000) }] } };
      },
    };
    const model = toolLoopModel();
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({
        name: 'agent',
        model,
        tools: [
          new FunctionTool({
            name: 'look',
            description: 'look',
            parameters: z.object({}),
            execute: async () => ({ out: 'data '.repeat(2_000) }),
          }),
        ],
      }),
      sessionService,
      compaction: { tokenThreshold: 5_000, eventRetentionSize: 2, maxRequestBytes },
      summarizer,
      logger: false,
    });
    const storedPerTurn: number[] = [];
    const summariesPerTurn: number[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const before = (await compactions(sessionService)).length;
      const summariesBefore = summaries;
      const events: Event[] = [];
      for await (const event of runner.run({ ...key, newMessage: `question ${turn}` })) {
        events.push(event);
      }
      expect(events.at(-1)?.content?.parts[0]?.text).toMatch(/^answer/);
      storedPerTurn.push((await compactions(sessionService)).length - before);
      summariesPerTurn.push(summaries - summariesBefore);
    }
    // Before: [2, 4, 4] summaries of 2 MB stored (one per model call over the ceiling).
    expect(storedPerTurn).toEqual([1, 1, 1]);
    expect(summariesPerTurn).toEqual([1, 1, 1]);
    // Nothing sent over the ceiling; the summary was cut in the view, whole in the store.
    expect(Math.max(...model.requestBytes)).toBeLessThanOrEqual(maxRequestBytes);
    const [first] = await compactions(sessionService);
    expect(JSON.stringify(first?.actions.compaction?.compactedContent).length).toBeGreaterThan(
      2_000_000,
    );
  });
});
