import {
  InMemorySessionService as AdkInMemorySessionService,
  BaseLlm,
  type BaseLlmConnection,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LOAD_MEMORY,
  PRELOAD_MEMORY,
  Runner,
} from '@google/adk';
import type { Content } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { OrreryAdkMemoryService } from './orrery-adk-memory-service.js';
import { OrreryAdkSessionService } from './orrery-adk-session-service.js';

const appName = 'adk-memory';

/** Answers "remember ..." with "ok", and any other message with one load_memory call. */
class MemoryStubLlm extends BaseLlm {
  readonly requests: Content[][] = [];
  /** The system instruction of every request, in order. */
  readonly instructions: string[] = [];

  constructor() {
    super({ model: 'memory-stub' });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const contents = structuredClone(request.contents);
    this.requests.push(contents);
    this.instructions.push(String(request.config?.systemInstruction ?? ''));
    const last = contents.at(-1);
    const text = last?.parts?.[0]?.text ?? '';
    if (last?.role === 'user' && text !== '' && !text.startsWith('remember')) {
      yield {
        content: {
          role: 'model',
          parts: [{ functionCall: { name: 'load_memory', args: { query: text } } }],
        },
      };
      return;
    }
    yield { content: { role: 'model', parts: [{ text: 'ok' }] } };
  }

  async connect(): Promise<BaseLlmConnection> {
    throw new Error('no live connection');
  }
}

async function turn(runner: Runner, userId: string, sessionId: string, text: string) {
  for await (const _event of runner.runAsync({
    userId,
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  })) {
    // stored by the session service
  }
}

function loadMemoryResponse(contents: Content[] | undefined): unknown {
  for (const content of contents ?? []) {
    for (const part of content.parts ?? []) {
      if (part.functionResponse?.name === 'load_memory') return part.functionResponse.response;
    }
  }
  throw new Error('no load_memory response');
}

describe('OrreryAdkMemoryService through ADK-JS Runner and its load_memory tool', () => {
  it("finds what the user said in an earlier session, never another user's", async () => {
    const store = new InMemorySessionService();
    const sessionService = new OrreryAdkSessionService({
      sessionService: store,
      compaction: null,
      logger: false,
    });
    const memoryService = new OrreryAdkMemoryService({ sessionService: store });
    const model = new MemoryStubLlm();
    const agent = new LlmAgent({ name: 'assistant', model, tools: [LOAD_MEMORY] });
    const runner = new Runner({ appName, agent, sessionService, memoryService });
    for (const [userId, sessionId, text] of [
      ['alice', 'first', 'remember: my locker code is 5512'],
      ['bob', 'bobs', 'remember: my locker code is 9000'],
    ]) {
      await sessionService.createSession({ appName, userId: userId!, sessionId });
      await turn(runner, userId!, sessionId!, text!);
    }
    // ADK's Runner stores through orrery: adding the session copies nothing.
    const first = await sessionService.getSession({ appName, userId: 'alice', sessionId: 'first' });
    await memoryService.addSessionToMemory(first!);
    const stored = await store.listEvents({ appName, userId: 'alice', sessionId: 'first' });
    expect(stored.events.map((event) => event.author)).toEqual(['user', 'assistant']);

    await sessionService.createSession({ appName, userId: 'alice', sessionId: 'second' });
    await turn(runner, 'alice', 'second', 'what is my locker code');
    const response = loadMemoryResponse(model.requests.at(-1)) as {
      memories: Array<{ content: string; author: string; timestamp: string }>;
    };
    const contents = response.memories.map((memory) => memory.content);
    expect(contents).toContain('remember: my locker code is 5512');
    expect(contents.join('\n')).not.toContain('9000');
    const found = response.memories.find((memory) => memory.content.includes('5512'));
    expect(found?.author).toBe('user');
    expect(found?.timestamp).toBe(new Date(stored.events[0]!.timestamp * 1000).toISOString());
  });

  it('copies a session from another ADK session service in once, and it is searchable', async () => {
    const store = new InMemorySessionService();
    const memoryService = new OrreryAdkMemoryService({ sessionService: store, limit: 3 });
    const adkSessions = new AdkInMemorySessionService();
    const model = new MemoryStubLlm();
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model }),
      sessionService: adkSessions,
    });
    await adkSessions.createSession({ appName, userId: 'carol', sessionId: 'adk' });
    await turn(runner, 'carol', 'adk', 'remember: the boat is called Albatross');
    const session = await adkSessions.getSession({ appName, userId: 'carol', sessionId: 'adk' });
    await memoryService.addSessionToMemory(session!);
    await memoryService.addSessionToMemory(session!);
    const copied = await store.listEvents({ appName, userId: 'carol', sessionId: 'adk' });
    expect(copied.events).toHaveLength(2);
    const { memories } = await memoryService.searchMemory({
      appName,
      userId: 'carol',
      query: 'boat name',
    });
    expect(memories[0]).toMatchObject({
      author: 'user',
      sessionId: 'adk',
      seq: 1,
      content: { role: 'user', parts: [{ text: 'remember: the boat is called Albatross' }] },
    });
    // ADK-JS timestamps are milliseconds; orrery's seconds: the ISO time is the same instant.
    expect(memories[0]?.timestamp).toBe(new Date(session!.events[0]!.timestamp).toISOString());
  });

  it("feeds ADK's PRELOAD_MEMORY: the earlier session's words reach the system instruction", async () => {
    const store = new InMemorySessionService();
    const sessionService = new OrreryAdkSessionService({
      sessionService: store,
      compaction: null,
      logger: false,
    });
    const memoryService = new OrreryAdkMemoryService({ sessionService: store });
    const model = new MemoryStubLlm();
    const agent = new LlmAgent({ name: 'assistant', model, tools: [PRELOAD_MEMORY] });
    const runner = new Runner({ appName, agent, sessionService, memoryService });
    await sessionService.createSession({ appName, userId: 'dave', sessionId: 'before' });
    await turn(runner, 'dave', 'before', 'remember: the wifi password hint is lighthouse');
    await sessionService.createSession({ appName, userId: 'dave', sessionId: 'after' });
    await turn(runner, 'dave', 'after', 'remember: what was the wifi password hint');
    const instruction = model.instructions.at(-1) ?? '';
    expect(instruction).toContain('<PAST_CONVERSATIONS>');
    expect(instruction).toContain('user: remember: the wifi password hint is lighthouse');
  });
});
