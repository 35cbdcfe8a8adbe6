import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getText } from '../../events/event-helpers.js';
import type { Event, SessionKey } from '../../events/types.js';
import type { ModelRequest } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { AppendEventOptions, StoredView } from '../../sessions/session-service.js';
import { DigestSummarizer } from '../../summarizers/digest-summarizer.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from '../turn/runner.js';

const appName = 'unit';
const userId = 'u';
const key: SessionKey = { appName, userId, sessionId: 's' };

/** Counts view reads; `beforeAppend` runs before each append (another writer's turn). */
class CountingService extends InMemorySessionService {
  viewReads = 0;
  beforeAppend?: (options: AppendEventOptions) => Promise<void>;

  override async loadView(options: SessionKey & { signal?: AbortSignal }): Promise<StoredView> {
    this.viewReads++;
    return super.loadView(options);
  }

  override async appendEvent(options: AppendEventOptions): Promise<Event> {
    const hook = this.beforeAppend;
    this.beforeAppend = undefined;
    await hook?.(options);
    return super.appendEvent(options);
  }
}

async function seeded(): Promise<CountingService> {
  const service = new CountingService();
  await service.createSession(key);
  for (const [author, role, text] of [
    ['user', 'user', 'hello'],
    ['agent', 'model', 'hi there'],
  ] as const) {
    await service.appendEvent({
      ...key,
      event: {
        id: `seed-${text}`,
        invocationId: 'seed',
        author,
        timestamp: 1,
        actions: {},
        content: { role, parts: [{ text }] },
      },
    });
  }
  return service;
}

function foreignEvent(text: string) {
  return {
    ...key,
    event: {
      id: `foreign-${text}`,
      invocationId: 'other',
      author: 'user',
      timestamp: 2,
      actions: {},
      content: { role: 'user' as const, parts: [{ text }] },
    },
  };
}

function texts(request: ModelRequest | undefined): string[] {
  return (request?.contents ?? []).map((content) => getText(content));
}

function runner(
  service: CountingService,
  model: ScriptedModel,
  options: { plugins?: Plugin[]; tool?: FunctionTool } = {},
) {
  const tool =
    options.tool ??
    new FunctionTool({
      name: 'lookup',
      description: 'lookup',
      parameters: z.object({ q: z.string() }),
      execute: async (args) => `found ${args.q}`,
    });
  return new Runner({
    appName,
    agent: new LlmAgent({ name: 'agent', model, tools: [tool] }),
    sessionService: service,
    compaction: {
      tokenThreshold: 100_000,
      eventRetentionSize: 2,
      compactionInterval: 50,
      overlapSize: 1,
      summarizer: new DigestSummarizer(),
    },
    plugins: options.plugins,
    logger: false,
  });
}

function compactingRunner(service: CountingService, model: ScriptedModel, plugins?: Plugin[]) {
  return new Runner({
    appName,
    agent: new LlmAgent({ name: 'agent', model }),
    sessionService: service,
    compaction: {
      tokenThreshold: 100_000,
      eventRetentionSize: 2,
      compactionInterval: 1,
      overlapSize: 0,
      summarizer: new DigestSummarizer(),
    },
    plugins,
    logger: false,
  });
}

function script() {
  return [
    toolCallResponse([{ id: 'c1', name: 'lookup', args: { q: 'x' } }], { promptTokenCount: 50 }),
    textResponse('done', { promptTokenCount: 80 }),
  ];
}

async function drain(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

describe('Runner view reads', () => {
  it('sends the same requests whether the view is kept from the session read or read again', async () => {
    const tracked = await seeded();
    const trackedModel = new ScriptedModel({ script: script() });
    await drain(runner(tracked, trackedModel).run({ userId, sessionId: 's', newMessage: 'go' }));

    // A plugin turns tracking off: every model call and the after-invocation check read.
    const reread = await seeded();
    const rereadModel = new ScriptedModel({ script: script() });
    await drain(
      runner(reread, rereadModel, { plugins: [{ name: 'noop' }] }).run({
        userId,
        sessionId: 's',
        newMessage: 'go',
      }),
    );

    expect(tracked.viewReads).toBe(0);
    expect(reread.viewReads).toBe(3);
    expect(trackedModel.calls).toEqual(rereadModel.calls);
    expect(texts(trackedModel.calls[0])).toEqual(['hello', 'hi there', 'go']);
    expect(trackedModel.calls[1]?.contents.at(-1)?.parts[0]?.functionResponse?.response).toEqual({
      result: 'found x',
    });
  });

  it('reads the store again when another writer appended before the user message', async () => {
    const service = await seeded();
    service.beforeAppend = async () => {
      await service.appendEvent(foreignEvent('written elsewhere'));
    };
    const model = new ScriptedModel({ script: [textResponse('ok')] });
    await drain(runner(service, model).run({ userId, sessionId: 's', newMessage: 'go' }));

    // Both user-role texts, merged into one content.
    expect(texts(model.calls[0])).toEqual(['hello', 'hi there', 'written elsewherego']);
    expect(service.viewReads).toBeGreaterThanOrEqual(1);
  });

  it('reads the store again when a tool wrote to the session itself', async () => {
    const service = await seeded();
    const tool = new FunctionTool({
      name: 'lookup',
      description: 'lookup',
      parameters: z.object({ q: z.string() }),
      execute: async (args) => {
        await service.appendEvent(foreignEvent(`note about ${args.q}`));
        return `found ${args.q}`;
      },
    });
    const model = new ScriptedModel({ script: script() });
    await drain(runner(service, model, { tool }).run({ userId, sessionId: 's', newMessage: 'go' }));

    const second = model.calls[1];
    // The foreign note, then the response (one user-role content): the view as stored.
    const last = second?.contents.at(-1);
    expect(last?.parts[0]?.text).toBe('note about x');
    expect(last?.parts[1]?.functionResponse?.id).toBe('c1');
    expect(service.viewReads).toBeGreaterThanOrEqual(1);
  });

  it('does not let a caller that changes a yielded event change the next request', async () => {
    const service = await seeded();
    const model = new ScriptedModel({ script: script() });
    for await (const event of runner(service, model).run({
      userId,
      sessionId: 's',
      newMessage: 'go',
    })) {
      const part = event.content?.parts[0];
      if (part?.text !== undefined) part.text = 'changed by the caller';
    }
    expect(texts(model.calls[1])[2]).toBe('go');
  });

  it('plans an after-invocation compaction from the view it already holds', async () => {
    const tracked = await seeded();
    await drain(
      compactingRunner(tracked, new ScriptedModel({ script: [textResponse('ok')] })).run({
        userId,
        sessionId: 's',
        newMessage: 'go',
      }),
    );
    const reread = await seeded();
    await drain(
      compactingRunner(reread, new ScriptedModel({ script: [textResponse('ok')] }), [
        { name: 'noop' },
      ]).run({ userId, sessionId: 's', newMessage: 'go' }),
    );

    const compactionsOf = async (service: CountingService) =>
      (await service.listEvents(key)).events
        .map((event) => event.actions.compaction)
        .filter((compaction) => compaction !== undefined)
        .map(({ startSeq, endSeq, trigger }) => ({ startSeq, endSeq, trigger }));
    expect(await compactionsOf(tracked)).toEqual([
      { startSeq: 1, endSeq: 4, trigger: 'sliding_window' },
    ]);
    expect(await compactionsOf(reread)).toEqual(await compactionsOf(tracked));
    // Tracked: only the read after the compaction (for the token check). Untracked: the model
    // call's, the checks', the compactor's and that one.
    expect(tracked.viewReads).toBe(1);
    expect(reread.viewReads).toBe(4);
  });
});
