import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Content } from '../../src/index.js';
import {
  ContextOverflowError,
  DigestSummarizer,
  FunctionTool,
  getText,
  InMemorySessionService,
  LlmAgent,
  ModelError,
  Runner,
  SUMMARY_PREFIX,
} from '../../src/index.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../src/testing/index.js';
import {
  appName,
  collect,
  compactions,
  deferred,
  fullHistory,
  RecordingSummarizer,
  userId,
} from './helpers.js';

function firstText(contents: Content[]): string {
  return contents[0] ? getText(contents[0]) : '';
}

function overflowError(): ModelError {
  return new ModelError({
    kind: 'context_overflow',
    statusCode: 400,
    message: 'Request payload size exceeds the limit',
  });
}

const bigTool = new FunctionTool({
  name: 'dump_logs',
  description: 'returns a lot of log text',
  parameters: z.object({ part: z.number() }),
  execute: async (args) => `log part ${args.part}: ${'lorem ipsum dolor sit amet '.repeat(800)}`,
});

async function newSession(sessionService: InMemorySessionService, sessionId: string) {
  await sessionService.createSession({ appName, userId, sessionId });
}

describe('compaction before every model call', () => {
  it('compacts inside a tool loop once the next request crosses the threshold', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'loop');
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 'c1', name: 'dump_logs', args: { part: 1 } }]),
        toolCallResponse([{ id: 'c2', name: 'dump_logs', args: { part: 2 } }]),
        textResponse('the logs say nothing'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'ops', model, tools: [bigTool] }),
      sessionService,
      compaction: { tokenThreshold: 3000, eventRetentionSize: 2, retentionTokenBudget: 500 },
      summarizer: new DigestSummarizer(),
      logger: false,
    });

    await collect(runner.run({ userId, sessionId: 'loop', newMessage: 'read the logs' }));

    // Call 1 saw the raw message; calls 2 and 3 came after a tool result of ~4k tokens each.
    expect(firstText(model.calls[0]!.contents)).toBe('read the logs');
    expect(firstText(model.calls[1]!.contents).startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(firstText(model.calls[2]!.contents).startsWith(SUMMARY_PREFIX)).toBe(true);
    const history = await fullHistory(sessionService, 'loop');
    const made = compactions(history);
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(made.every((event) => event.actions.compaction?.trigger === 'token_threshold')).toBe(
      true,
    );
    // Lossless: the originals are all still stored.
    const raw = history.filter((event) => !event.actions.compaction);
    expect(raw).toHaveLength(6);
    expect(JSON.stringify(raw)).toContain('log part 2: lorem');
  });
});

describe('overflow: compact with a smaller tail and retry once', () => {
  async function sessionWithHistory(sessionService: InMemorySessionService, sessionId: string) {
    await newSession(sessionService, sessionId);
    const warmup = new ScriptedModel({
      script: [textResponse('first answer'), textResponse('second answer')],
    });
    const warm = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model: warmup }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await collect(warm.run({ userId, sessionId, newMessage: 'first question' }));
    await collect(warm.run({ userId, sessionId, newMessage: 'second question' }));
  }

  it('retries once after compacting when the provider rejects the request for size', async () => {
    const sessionService = new InMemorySessionService();
    await sessionWithHistory(sessionService, 'ov1');
    const model = new ScriptedModel({
      script: [overflowError(), textResponse('fits now')],
    });
    const summarizer = new RecordingSummarizer();
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model }),
      sessionService,
      compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 4 },
      summarizer,
      logger: false,
    });

    const events = await collect(runner.run({ userId, sessionId: 'ov1', newMessage: 'third' }));

    expect(getText(events.at(-1)!)).toBe('fits now');
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]!.contents.length).toBeGreaterThan(model.calls[1]!.contents.length);
    expect(firstText(model.calls[1]!.contents).startsWith(SUMMARY_PREFIX)).toBe(true);
    const made = compactions(await fullHistory(sessionService, 'ov1'));
    expect(made).toHaveLength(1);
    expect(made[0]!.actions.compaction?.trigger).toBe('overflow');
    expect(summarizer.inputs).toHaveLength(1);
  });

  it('surfaces a typed ContextOverflowError when the retry is rejected too', async () => {
    const sessionService = new InMemorySessionService();
    await sessionWithHistory(sessionService, 'ov2');
    const secondRejection = overflowError();
    const model = new ScriptedModel({ script: [overflowError(), secondRejection] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model }),
      sessionService,
      compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 4 },
      summarizer: new RecordingSummarizer(),
      logger: false,
    });

    const error = await collect(
      runner.run({ userId, sessionId: 'ov2', newMessage: 'third' }),
    ).catch((caught: unknown) => caught);

    expect(ContextOverflowError.isInstance(error)).toBe(true);
    const overflow = error as ContextOverflowError;
    expect(overflow.cause).toBe(secondRejection);
    expect(overflow.compacted).toBe(true);
    expect(overflow.agentName).toBe('assistant');
    expect(model.calls).toHaveLength(2);
  });

  it('fails with ContextOverflowError at once when compaction is off', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'ov3');
    const rejection = overflowError();
    const model = new ScriptedModel({ script: [rejection] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model }),
      sessionService,
      compaction: null,
      logger: false,
    });
    const error = await collect(runner.run({ userId, sessionId: 'ov3', newMessage: 'hi' })).catch(
      (caught: unknown) => caught,
    );
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as ContextOverflowError).cause).toBe(rejection);
    expect((error as ContextOverflowError).compacted).toBe(false);
  });

  it('passes other model errors through untouched', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'ov4');
    const fatal = new ModelError({ kind: 'fatal', statusCode: 401, message: 'bad key' });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'assistant', model: new ScriptedModel({ script: [fatal] }) }),
      sessionService,
      compaction: { tokenThreshold: 1_000_000, eventRetentionSize: 4 },
      summarizer: new DigestSummarizer(),
      logger: false,
    });
    await expect(collect(runner.run({ userId, sessionId: 'ov4', newMessage: 'hi' }))).rejects.toBe(
      fatal,
    );
  });
});

describe('after the invocation', () => {
  it('background compaction does not hold the caller and the next run waits for it', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'bg');
    const release = deferred();
    const summarizerStarted = deferred();
    const summarizer = new RecordingSummarizer();
    const slowSummarizer = {
      name: 'slow',
      async summarize(options: Parameters<RecordingSummarizer['summarize']>[0]) {
        summarizerStarted.resolve();
        await release.promise;
        return summarizer.summarize(options);
      },
    };
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 'c1', name: 'dump_logs', args: { part: 1 } }]),
        // A long answer pushes the session over the threshold only after the turn.
        textResponse(`first turn done. ${'word '.repeat(400)}`),
        textResponse('second turn done'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'ops', model, tools: [bigTool] }),
      sessionService,
      // Under the threshold during the loop (one result ~4.2k tokens), over it after the turn.
      compaction: { tokenThreshold: 4400, eventRetentionSize: 1, retentionTokenBudget: 200 },
      summarizer: slowSummarizer,
      background: true,
      logger: false,
    });

    const first = await collect(runner.run({ userId, sessionId: 'bg', newMessage: 'logs' }));
    expect(getText(first.at(-1)!)).toMatch(/^first turn done/);
    // The run finished while the summarizer is still waiting.
    await summarizerStarted.promise;
    expect(compactions(await fullHistory(sessionService, 'bg'))).toHaveLength(0);

    const second = collect(runner.run({ userId, sessionId: 'bg', newMessage: 'and now?' }));
    // Counted, not timed: the second run gets many turns of the event loop (the in-memory store
    // needs a handful) and still makes no model call while the compaction is held.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(model.calls).toHaveLength(2);
    release.resolve();
    const events = await second;
    expect(getText(events.at(-1)!)).toBe('second turn done');
    expect(firstText(model.calls[2]!.contents).startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(compactions(await fullHistory(sessionService, 'bg'))).toHaveLength(1);
    await runner.flush();
  });

  it('a failing summarizer never fails the turn, and the old view stays', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'fail');
    const failing = {
      name: 'flaky',
      async summarize(): Promise<never> {
        throw new Error('summarizer is down');
      },
    };
    const model = new ScriptedModel({
      script: [
        toolCallResponse([{ id: 'c1', name: 'dump_logs', args: { part: 1 } }]),
        textResponse('answered anyway'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'ops', model, tools: [bigTool] }),
      sessionService,
      compaction: { tokenThreshold: 1000, eventRetentionSize: 1 },
      summarizer: failing,
      fallbackSummarizer: null,
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 'fail', newMessage: 'logs' }));
    expect(getText(events.at(-1)!)).toBe('answered anyway');
    expect(compactions(await fullHistory(sessionService, 'fail'))).toHaveLength(0);
    // The second call saw the raw tool result: nothing was hidden without a summary.
    expect(JSON.stringify(model.calls[1]!.contents)).toContain('log part 1: lorem');
    const metrics = await runner.metrics.registry.metrics();
    expect(metrics).toMatch(/orrery_summarizer_failures_total\{summarizer="flaky"\} [1-9]/);
  });

  it('runs the sliding window after each invocation', async () => {
    const sessionService = new InMemorySessionService();
    await newSession(sessionService, 'slide');
    const model = new ScriptedModel({
      script: [textResponse('a1'), textResponse('a2'), textResponse('a3')],
    });
    const summarizer = new RecordingSummarizer();
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'chat', model }),
      sessionService,
      compaction: { compactionInterval: 2, overlapSize: 0 },
      summarizer,
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 'slide', newMessage: 'q1' }));
    expect(summarizer.inputs).toHaveLength(0);
    await collect(runner.run({ userId, sessionId: 'slide', newMessage: 'q2' }));
    const made = compactions(await fullHistory(sessionService, 'slide'));
    expect(made).toHaveLength(1);
    expect(made[0]!.actions.compaction).toMatchObject({
      trigger: 'sliding_window',
      startSeq: 1,
      endSeq: 4,
    });
    await collect(runner.run({ userId, sessionId: 'slide', newMessage: 'q3' }));
    expect(firstText(model.calls[2]!.contents).startsWith(SUMMARY_PREFIX)).toBe(true);
  });
});
