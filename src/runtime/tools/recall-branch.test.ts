import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import {
  compactionEvent,
  functionCallEvent,
  functionResponseEvent,
  userTextEvent,
} from '../../testing/event-builders.js';
import { createRecallTool } from './recall-tool.js';
import type { ToolContext } from './tool.js';

const key = { appName: 'a', userId: 'u', sessionId: 's' };

function toolContext(branch: string): ToolContext {
  const state = {
    get: () => undefined,
    has: () => false,
    set: () => undefined,
    toObject: () => ({}),
  };
  return {
    ...key,
    invocationId: 'i',
    agentName: branch,
    functionCallId: 'c',
    state,
    branch,
    viewScope: { branch },
  };
}

describe('recall on a branch', () => {
  it("reads the branch's own summary range and never a sibling's events", async () => {
    const service = new InMemorySessionService();
    await service.createSession(key);
    const append = (event: NewEvent) => service.appendEvent({ ...key, event });
    await append(userTextEvent({ text: 'kafka consumers are slow' })); // 1 trunk
    for (const name of ['a', 'b']) {
      const branch = `sweep.${name}`;
      await append(functionCallEvent({ calls: [`${name}1`], author: name, branch }));
      await append(
        functionResponseEvent({
          responses: [{ id: `${name}1`, response: { text: `kafka lag seen by ${name}` } }],
          author: name,
          branch,
        }),
      );
    }
    // Seqs 2-5: a1 call, a1 response, b1 call, b1 response. Branch a summarized 1-3.
    const { actions, ...summary } = compactionEvent({ startSeq: 1, endSeq: 3, text: 'a read lag' });
    await append({
      ...summary,
      branch: 'sweep.a',
      actions: { branchCompaction: actions.compaction },
    });
    // Hits alone (no context windows), so the passages' order is the hits' order.
    const recall = createRecallTool({ sessionService: service, recall: { contextEvents: 0 } });
    const result = (await recall.run({
      args: { query: 'kafka lag' },
      context: toolContext('sweep.a'),
    })) as {
      compactedThroughSeq: number;
      passages: { items: { seq: number; text: string; hit?: true }[] }[];
    };
    expect(result.compactedThroughSeq).toBe(3);
    const items = result.passages.flatMap((passage) => passage.items);
    const texts = items.map((item) => item.text).join('\n');
    expect(texts).toContain('kafka lag seen by a');
    expect(texts).not.toContain('seen by b');
    // Own branch first, then the trunk.
    expect(items[0]?.seq).toBe(3);
    const range = (await recall.run({
      args: { fromSeq: 1, toSeq: 5 },
      context: toolContext('sweep.a'),
    })) as { items: { seq: number }[] };
    expect(range.items.map((item) => item.seq)).toEqual([1, 2, 3]);
  });
});
