import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventsCompactionConfig, EventsSummarizer } from '../../compaction/types.js';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import type { Event } from '../../events/types.js';
import { ModelError } from '../../models/errors.js';
import type { Model } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import {
  ScriptedModel,
  type ScriptStep,
  streamedTextResponse,
  textResponse,
  toolCallResponse,
} from '../../testing/scripted-model.js';
import { type AgentEvent, isPartialEvent } from '../agents/agent.js';
import { LlmAgent } from '../agents/llm-agent.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from './runner.js';

const key = { appName: 'unit', userId: 'u', sessionId: 's' };

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const collected: AgentEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function fullHistory(service: InMemorySessionService): Promise<Event[]> {
  const session = await service.getSession({ ...key, events: 'full' });
  return session?.events ?? [];
}

/** An event without what differs between two identical runs (ids, clocks). */
function comparable(event: AgentEvent): unknown {
  const { id: _id, timestamp: _timestamp, invocationId: _invocationId, ...rest } = event;
  const compaction = rest.actions.compaction;
  if (!compaction) return rest;
  const { startTimestamp: _start, endTimestamp: _end, ...range } = compaction;
  return { ...rest, actions: { ...rest.actions, compaction: range } };
}

function texts(events: AgentEvent[]): string[] {
  return events.flatMap((event) => event.content?.parts.map((part) => part.text ?? '') ?? []);
}

const summarizer: EventsSummarizer = {
  name: 'stub',
  summarize: async ({ events }) => ({
    content: { role: 'model', parts: [{ text: `summary of ${events.length} events` }] },
  }),
};

const lookup = new FunctionTool({
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: z.object({ word: z.string() }),
  execute: async ({ word }) => ({ definition: `${word}: a word` }),
});

async function setup(options: {
  script: ScriptStep[];
  streaming?: boolean;
  /** Default: a low token threshold; `false`: off. */
  compaction?: EventsCompactionConfig | false;
  plugins?: Plugin[];
}) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession(key);
  const model = new ScriptedModel({ script: options.script, streaming: options.streaming });
  const runner = new Runner({
    appName: key.appName,
    agent: new LlmAgent({
      name: 'agent',
      model,
      tools: [lookup],
      modelRetry: { baseDelayMs: 0 },
    }),
    sessionService,
    compaction:
      options.compaction === false
        ? null
        : (options.compaction ?? { tokenThreshold: 60, eventRetentionSize: 1 }),
    summarizer,
    plugins: options.plugins,
    logger: false,
  });
  return { sessionService, model, runner };
}

/** Four turns, one of them with a tool call: the same answers, streamed or whole. */
function conversation(): ScriptStep[] {
  return [
    streamedTextResponse(['The ', 'first ', 'answer.']),
    toolCallResponse([{ id: 'c1', name: 'lookup', args: { word: 'orrery' } }]),
    streamedTextResponse(['An orrery ', 'models the ', 'solar system.']),
    streamedTextResponse(['Third ', 'turn, ', 'after compaction.']),
    textResponse('Fourth answer, whole.'),
  ];
}
const questions = ['hello', 'what is an orrery?', 'go on', 'and then?'];

describe('Runner streaming', () => {
  it('yields partial deltas in order before the stored answer, stores none of them', async () => {
    const { sessionService, runner } = await setup({
      script: [streamedTextResponse(['Hel', 'lo, ', 'world.'])],
      compaction: false,
    });

    const events = await collect(runner.run({ ...key, newMessage: 'hi', streaming: true }));

    expect(events.map((event) => (isPartialEvent(event) ? 'partial' : 'stored'))).toEqual([
      'stored',
      'partial',
      'partial',
      'partial',
      'stored',
    ]);
    expect(texts(events.filter(isPartialEvent))).toEqual(['Hel', 'lo, ', 'world.']);
    for (const partial of events.filter(isPartialEvent)) {
      expect(partial).toMatchObject({ partial: true, author: 'agent' });
      expect('seq' in partial).toBe(false);
    }
    const final = events.at(-1) as Event;
    expect(final.partial).toBeUndefined();
    expect(texts([final])).toEqual(['Hello, world.']);
    const stored = await fullHistory(sessionService);
    expect(stored.map((event) => event.seq)).toEqual([1, 2]);
    expect(stored.some((event) => event.partial)).toBe(false);
    expect(stored[1]).toEqual(final);
  });

  it('stores exactly what the same turns store without streaming, compacting before every model call', async () => {
    const streamed = await setup({ script: conversation() });
    const whole = await setup({ script: conversation() });
    const streamedYield: AgentEvent[] = [];
    const wholeYield: AgentEvent[] = [];
    for (const question of questions) {
      streamedYield.push(
        ...(await collect(streamed.runner.run({ ...key, newMessage: question, streaming: true }))),
      );
      wholeYield.push(...(await collect(whole.runner.run({ ...key, newMessage: question }))));
    }

    const streamedHistory = await fullHistory(streamed.sessionService);
    const wholeHistory = await fullHistory(whole.sessionService);
    expect(streamedHistory.map(comparable)).toEqual(wholeHistory.map(comparable));
    // The stored events are the ones yielded, partial ones left out.
    expect(streamedYield.filter((event) => !isPartialEvent(event)).map(comparable)).toEqual(
      wholeYield.map(comparable),
    );
    expect(texts(streamedYield.filter(isPartialEvent))).toEqual([
      'The ',
      'first ',
      'answer.',
      'An orrery ',
      'models the ',
      'solar system.',
      'Third ',
      'turn, ',
      'after compaction.',
      'Fourth answer, whole.',
    ]);
    // Compaction ran, and every model call saw the same (compacted) request either way.
    expect(streamedHistory.filter((event) => event.actions.compaction).length).toBeGreaterThan(0);
    expect(streamed.model.calls).toEqual(whole.model.calls);
    expect(streamed.model.callModes).toEqual(['stream', 'stream', 'stream', 'stream', 'stream']);
    expect(whole.model.callModes).toEqual([
      'generate',
      'generate',
      'generate',
      'generate',
      'generate',
    ]);
    const lastRequest = streamed.model.calls.at(-1)!;
    expect(lastRequest.contents[0]!.parts[0]!.text?.startsWith(SUMMARY_PREFIX)).toBe(true);
  });

  it('answers whole, with no partial events, when the model cannot stream or streaming is off', async () => {
    const cannot = await setup({
      script: [textResponse('whole answer')],
      streaming: false,
      compaction: false,
    });
    const cannotEvents = await collect(
      cannot.runner.run({ ...key, newMessage: 'hi', streaming: true }),
    );
    expect(cannotEvents.filter(isPartialEvent)).toEqual([]);
    expect(texts(cannotEvents)).toEqual(['hi', 'whole answer']);

    const off = await setup({ script: [streamedTextResponse(['a', 'b'])], compaction: false });
    const offEvents = await collect(off.runner.run({ ...key, newMessage: 'hi' }));
    expect(offEvents.filter(isPartialEvent)).toEqual([]);
    expect(texts(offEvents)).toEqual(['hi', 'ab']);
    expect(off.model.callModes).toEqual(['generate']);
  });

  it('retries a stream that fails before its first part, as a whole call would be', async () => {
    const rateLimited = new ModelError({ kind: 'retryable', message: '429', statusCode: 429 });
    const { sessionService, model, runner } = await setup({
      script: [{ streamParts: [rateLimited] }, streamedTextResponse(['after ', 'retry'])],
      compaction: false,
    });

    const events = await collect(runner.run({ ...key, newMessage: 'hi', streaming: true }));

    expect(model.callModes).toEqual(['stream', 'stream']);
    expect(texts(events.filter(isPartialEvent))).toEqual(['after ', 'retry']);
    expect(texts(await fullHistory(sessionService))).toEqual(['hi', 'after retry']);
  });

  it('compacts and retries once on an overflow before the first part', async () => {
    const overflow = new ModelError({ kind: 'context_overflow', message: 'too long' });
    const { sessionService, model, runner } = await setup({
      script: [
        textResponse('first answer, long enough to be worth summarizing later on'),
        { streamParts: [overflow] },
        streamedTextResponse(['fits ', 'now']),
      ],
      // Only the overflow compacts.
      compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 1 },
    });
    await collect(runner.run({ ...key, newMessage: 'start' }));

    const events = await collect(runner.run({ ...key, newMessage: 'next', streaming: true }));

    expect(model.callModes).toEqual(['generate', 'stream', 'stream']);
    expect(texts(events.filter(isPartialEvent))).toEqual(['fits ', 'now']);
    const history = await fullHistory(sessionService);
    const overflowCompaction = history.find(
      (event) => event.actions.compaction?.trigger === 'overflow',
    );
    expect(overflowCompaction?.seq).toBe(4);
    expect(texts([history.at(-1)!])).toEqual(['fits now']);
  });

  it('surfaces an error after parts were yielded: no retry, the partial answer is not stored', async () => {
    const cut = new ModelError({ kind: 'retryable', message: 'connection reset' });
    const overflow = new ModelError({ kind: 'context_overflow', message: 'too long' });
    for (const failure of [cut, overflow]) {
      const { sessionService, model, runner } = await setup({
        script: [{ streamParts: [{ type: 'text-delta', text: 'Half an ' }, failure] }],
      });
      const seen: AgentEvent[] = [];
      const run = (async () => {
        for await (const event of runner.run({ ...key, newMessage: 'hi', streaming: true })) {
          seen.push(event);
        }
      })();

      await expect(run).rejects.toBe(failure);
      expect(model.callModes).toEqual(['stream']);
      expect(texts(seen)).toEqual(['hi', 'Half an ']);
      expect(texts(await fullHistory(sessionService))).toEqual(['hi']);
    }
  });

  it('streams the text before a tool call and stores the call whole, then streams the answer', async () => {
    const { sessionService, runner } = await setup({
      script: [
        {
          streamParts: [
            { type: 'reasoning-delta', text: 'Need the word.' },
            { type: 'text-delta', text: 'Looking it up.' },
            {
              type: 'tool-call',
              functionCall: { id: 'c1', name: 'lookup', args: { word: 'orrery' } },
            },
            {
              type: 'finish',
              response: {
                content: {
                  role: 'model',
                  parts: [
                    { text: 'Need the word.', thought: true },
                    { text: 'Looking it up.' },
                    { functionCall: { id: 'c1', name: 'lookup', args: { word: 'orrery' } } },
                  ],
                },
                finishReason: 'tool-calls',
              },
            },
          ],
        },
        streamedTextResponse(['A model ', 'of the sky.']),
      ],
      compaction: false,
    });

    const events = await collect(runner.run({ ...key, newMessage: 'orrery?', streaming: true }));

    const partials = events.filter(isPartialEvent);
    expect(partials.map((event) => event.content?.parts[0])).toEqual([
      { text: 'Need the word.', thought: true },
      { text: 'Looking it up.' },
      { text: 'A model ' },
      { text: 'of the sky.' },
    ]);
    const stored = await fullHistory(sessionService);
    expect(stored.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(stored[1]?.content?.parts[2]?.functionCall?.name).toBe('lookup');
    expect(stored[2]?.content?.parts[0]?.functionResponse?.response).toEqual({
      definition: 'orrery: a word',
    });
    expect(texts([stored[3]!])).toEqual(['A model of the sky.']);
  });

  it('a beforeModel plugin answer is not streamed; afterModel sees the whole streamed response', async () => {
    const seen: string[] = [];
    const plugin: Plugin = {
      name: 'watch',
      beforeModel: () => (seen.length === 0 ? undefined : textResponse('from the plugin')),
      afterModel: ({ response }) => {
        seen.push(texts([{ ...response, actions: {} } as unknown as AgentEvent]).join(''));
      },
    };
    const { runner } = await setup({
      script: [streamedTextResponse(['stre', 'amed'])],
      compaction: false,
      plugins: [plugin],
    });
    const first = await collect(runner.run({ ...key, newMessage: 'one', streaming: true }));
    const second = await collect(runner.run({ ...key, newMessage: 'two', streaming: true }));

    expect(texts(first.filter(isPartialEvent))).toEqual(['stre', 'amed']);
    expect(second.filter(isPartialEvent)).toEqual([]);
    expect(texts(second)).toEqual(['two', 'from the plugin']);
    expect(seen).toEqual(['streamed', 'from the plugin']);
  });

  it('a caller that stops reading mid-stream closes the model stream; the session stays usable', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession(key);
    const closed: string[] = [];
    const model: Model = {
      modelId: 'closing',
      generate: async () => textResponse('whole'),
      async *stream() {
        try {
          yield { type: 'text-delta', text: 'one ' };
          yield { type: 'text-delta', text: 'two' };
          yield { type: 'finish', response: textResponse('one two') };
        } finally {
          closed.push('stream closed');
        }
      },
    };
    const runner = new Runner({
      appName: key.appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      logger: false,
    });

    for await (const event of runner.run({ ...key, newMessage: 'hi', streaming: true })) {
      if (isPartialEvent(event)) break;
    }

    expect(closed).toEqual(['stream closed']);
    // The lease was released: the next run goes ahead.
    const next = await collect(runner.run({ ...key, newMessage: 'again', streaming: true }));
    expect(texts(next.filter((event) => !isPartialEvent(event)))).toEqual(['again', 'one two']);
  });

  it('stops on abort mid-stream and closes the stream; nothing of the answer is stored', async () => {
    const { sessionService, runner } = await setup({
      script: [streamedTextResponse(['one ', 'two ', 'three'])],
      compaction: false,
    });
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const run = (async () => {
      for await (const event of runner.run({
        ...key,
        newMessage: 'hi',
        streaming: true,
        signal: controller.signal,
      })) {
        seen.push(event);
        if (isPartialEvent(event)) controller.abort(new Error('user pressed Ctrl-C'));
      }
    })();

    await expect(run).rejects.toThrow('user pressed Ctrl-C');
    expect(texts(seen)).toEqual(['hi', 'one ']);
    expect(texts(await fullHistory(sessionService))).toEqual(['hi']);
  });
});
