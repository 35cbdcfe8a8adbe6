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
  type LoadedMemory,
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
    const answer = response(model.calls[1], 'm') as { memories: LoadedMemory[] };
    // The message just sent in `now` matches too: the calling session is left out.
    expect(answer.memories).toEqual([
      {
        content: 'My sister Ingrid lives in Tromsø and keeps bees.',
        author: 'user',
        timestamp: '2024-05-01T00:00:00.000Z',
        sessionId: 'earlier',
        seq: 1,
      },
    ]);
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
