import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { MemoryService } from '../../sessions/memory-service.js';
import { SessionMemoryService } from '../../sessions/session-memory-service.js';
import { userTextEvent } from '../../testing/event-builders.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { Runner } from '../turn/runner.js';
import { FunctionTool } from './function-tool.js';
import {
  createLoadMemoryTool,
  createPreloadMemoryPlugin,
  type MemoryPassage,
} from './memory-tools.js';

const appName = 'memory-tools';
/** 2024-05-01T00:00:00Z */
const may1 = 1_714_521_600;

async function collect(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events) {
    // drain
  }
}

/** A store where user `u` said the fact in session `earlier`, and user `v` a decoy. */
async function storeWithEarlierSessions() {
  const sessionService = new InMemorySessionService();
  for (const [userId, sessionId, text] of [
    ['u', 'earlier', 'My sister Ingrid lives in Tromsø and keeps bees.'],
    ['v', 'other-user', 'My sister Ingrid lives in Lisbon.'],
  ] as const) {
    await sessionService.createSession({ appName, userId, sessionId });
    await sessionService.appendEvent({
      appName,
      userId,
      sessionId,
      event: userTextEvent({ text, timestamp: may1 }),
    });
  }
  await sessionService.createSession({ appName, userId: 'u', sessionId: 'now' });
  return sessionService;
}

function response(request: ModelRequest | undefined, id: string): unknown {
  for (const content of request?.contents ?? []) {
    for (const part of content.parts) {
      if (part.functionResponse?.id === id) return part.functionResponse.response;
    }
  }
  throw new Error(`no response to ${id}`);
}

describe('load_memory', () => {
  it("answers the user's other sessions, with date, author, session and seq, never another user's", async () => {
    const sessionService = await storeWithEarlierSessions();
    const memory = new SessionMemoryService({ sessionService });
    const model = new ScriptedModel({
      script: [
        toolCallResponse([
          { id: 'm', name: 'load_memory', args: { query: 'where does Ingrid live' } },
        ]),
        textResponse('In Tromsø.'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model, tools: [createLoadMemoryTool({ memory })] }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await collect(
      runner.run({
        userId: 'u',
        sessionId: 'now',
        newMessage: 'Where does my sister Ingrid live?',
      }),
    );
    expect(model.calls[0]?.tools?.map((tool) => tool.name)).toEqual(['load_memory']);
    const answer = response(model.calls[1], 'm') as { passages: MemoryPassage[] };
    // The message just sent in `now` matches too: the calling session is left out.
    expect(answer.passages).toEqual([
      {
        sessionId: 'earlier',
        fromSeq: 1,
        toSeq: 1,
        items: [
          {
            seq: 1,
            author: 'user',
            timestamp: '2024-05-01T00:00:00.000Z',
            content: 'My sister Ingrid lives in Tromsø and keeps bees.',
            hit: true,
          },
        ],
      },
    ]);
  });

  it('answers each memory with the turns around it, merged when they touch, best first', async () => {
    const sessionService = new InMemorySessionService();
    const turns: Array<[string, string[]]> = [
      [
        'trip',
        [
          'We should plan the summer trip.',
          'The ferry to Bodø leaves at 07:40 from pier 3.',
          'Good, I booked two seats.',
          'Pack the rain jackets.',
          'Also the camera.',
          'The hotel in Bodø is on Storgata.',
          'Check-in is after 15:00.',
        ],
      ],
      ['other', ['Lunch was fine.', 'Bodø again next year?', 'Maybe.']],
    ];
    for (const [sessionId, texts] of turns) {
      await sessionService.createSession({ appName, userId: 'u', sessionId });
      for (const text of texts) {
        await sessionService.appendEvent({
          appName,
          userId: 'u',
          sessionId,
          event: userTextEvent({ text, timestamp: may1 }),
        });
      }
    }
    await sessionService.createSession({ appName, userId: 'u', sessionId: 'now' });
    const memory = new SessionMemoryService({ sessionService });
    const tool = createLoadMemoryTool({ memory, contextEvents: 1, limit: 3 });
    const context = {
      appName,
      userId: 'u',
      sessionId: 'now',
      invocationId: 'i',
      agentName: 'agent',
      functionCallId: 'c',
      state: { get: () => undefined, has: () => false, set: () => {}, toObject: () => ({}) },
    };
    const answer = (await tool.run({ args: { query: 'ferry pier Bodø' }, context })) as {
      passages: MemoryPassage[];
    };
    const trip = answer.passages.find((passage) => passage.sessionId === 'trip');
    // The ferry turn (seq 2) with seqs 1 and 3; the hotel turn (seq 6) with 5 and 7.
    expect(answer.passages[0]).toMatchObject({ sessionId: 'trip', fromSeq: 1, toSeq: 3 });
    expect(trip?.items.map((item) => [item.seq, item.hit ?? false])).toEqual([
      [1, false],
      [2, true],
      [3, false],
    ]);
    expect(trip?.items[0]).toMatchObject({
      author: 'user',
      timestamp: '2024-05-01T00:00:00.000Z',
      content: 'We should plan the summer trip.',
    });
    const seqsBySession = answer.passages.map((passage) => [
      passage.sessionId,
      passage.items.map((item) => item.seq),
    ]);
    expect(seqsBySession).toContainEqual(['trip', [5, 6, 7]]);
    expect(seqsBySession).toContainEqual(['other', [1, 2, 3]]);
    // contextEvents 0: each memory alone.
    const alone = createLoadMemoryTool({ memory, contextEvents: 0, limit: 1 });
    const single = (await alone.run({ args: { query: 'ferry pier' }, context })) as {
      passages: MemoryPassage[];
    };
    expect(single.passages).toEqual([
      {
        sessionId: 'trip',
        fromSeq: 2,
        toSeq: 2,
        items: [expect.objectContaining({ seq: 2, hit: true })],
      },
    ]);
  });

  it('drops context turns, lowest passage first, past maxAnswerChars; memories stay', async () => {
    const sessionService = await storeWithEarlierSessions();
    for (const text of ['Before that we talked about weather.', 'And after it, about bees.']) {
      await sessionService.appendEvent({
        appName,
        userId: 'u',
        sessionId: 'earlier',
        event: userTextEvent({ text, timestamp: may1 }),
      });
    }
    const memory = new SessionMemoryService({ sessionService });
    const tool = createLoadMemoryTool({ memory, maxAnswerChars: 10 });
    const answer = (await tool.run({
      args: { query: 'Ingrid Tromsø' },
      context: {
        appName,
        userId: 'u',
        sessionId: 'now',
        invocationId: 'i',
        agentName: 'agent',
        functionCallId: 'c',
        state: { get: () => undefined, has: () => false, set: () => {}, toObject: () => ({}) },
      },
    })) as { passages: MemoryPassage[] };
    expect(answer.passages.map((passage) => passage.items.map((item) => item.seq))).toEqual([[1]]);
  });
});

describe('SessionMemoryService.readMemories', () => {
  it("reads a range of the user's session, never another user's; bad ranges name the field", async () => {
    const sessionService = await storeWithEarlierSessions();
    const memory = new SessionMemoryService({ sessionService });
    const read = (userId: string, fromSeq: number, toSeq: number) =>
      memory.readMemories({ appName, userId, sessionId: 'earlier', fromSeq, toSeq });
    expect((await read('u', 1, 5)).map((entry) => entry.seq)).toEqual([1]);
    expect(await read('v', 1, 5)).toEqual([]);
    await expect(read('u', 0, 5)).rejects.toThrow(/fromSeq/);
    await expect(read('u', 5, 1)).rejects.toThrow(/toSeq/);
    await expect(read('u', 1, 1000)).rejects.toThrow(/toSeq/);
  });
});

describe('preload_memory', () => {
  it("puts what the user's other sessions say into each model call's system instruction", async () => {
    const sessionService = await storeWithEarlierSessions();
    const memory = new SessionMemoryService({ sessionService });
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 't', name: 'noop' }]),
        textResponse('In Tromsø.'),
        textResponse('Hello.'),
      ],
    });
    const noop = new FunctionTool({
      name: 'noop',
      description: 'Does nothing.',
      parameters: z.object({}),
      execute: async () => ({ ok: true }),
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model, instruction: 'Be brief.', tools: [noop] }),
      sessionService,
      compaction: null,
      plugins: [createPreloadMemoryPlugin({ memory })],
      logger: false,
    });
    await collect(
      runner.run({
        userId: 'u',
        sessionId: 'now',
        newMessage: 'Where does my sister Ingrid live?',
      }),
    );
    for (const call of model.calls.slice(0, 2)) {
      expect(call.systemInstruction).toMatch(/^Be brief\.\n\n.*<PAST_CONVERSATIONS>/s);
      expect(call.systemInstruction).toContain(
        'Time: 2024-05-01T00:00:00.000Z (session earlier, seq 1)\nuser: My sister Ingrid lives in Tromsø and keeps bees.',
      );
      expect(call.systemInstruction).not.toContain('Lisbon');
      expect(call.systemInstruction).not.toContain('Where does my sister');
    }
    // A message memory knows nothing about: the instruction stays as the agent's.
    await collect(runner.run({ userId: 'u', sessionId: 'now', newMessage: 'xylophone' }));
    expect(model.calls[2]?.systemInstruction).toBe('Be brief.');
  });

  it('preloads nothing when the search fails, and the run goes on', async () => {
    const sessionService = await storeWithEarlierSessions();
    const failing: MemoryService = {
      addSessionToMemory: async () => {},
      searchMemory: async () => {
        throw new Error('memory is down');
      },
    };
    const model = new ScriptedModel({ script: [textResponse('ok')] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      plugins: [createPreloadMemoryPlugin({ memory: failing })],
      logger: false,
    });
    await collect(runner.run({ userId: 'u', sessionId: 'now', newMessage: 'Ingrid?' }));
    expect(model.calls[0]?.systemInstruction).toBeUndefined();
  });
});
