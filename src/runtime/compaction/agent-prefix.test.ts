import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEventsCompactionConfig } from '../../compaction/config.js';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { CompactionEvent, Event } from '../../events/types.js';
import type { ModelRequest, ModelResponse } from '../../models/types.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { PiiRedactionPlugin } from '../plugins/pii-redaction.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner, type RunnerOptions } from '../turn/runner.js';
import { AgentRequestLog } from './agent-request-log.js';

const appName = 'prefix';
const userId = 'u';
const LONG = `done: ${'the answer in detail '.repeat(120)}`;
const SUMMARY = '## User goal\n"hi" (seq 1)\n## Facts obtained\necho returned pong';

const echo = new FunctionTool({
  name: 'echo',
  description: 'Echo the text back.',
  parameters: z.object({ text: z.string() }),
  execute: async (args) => `pong ${args.text}`,
});

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** One turn: a tool call, its result, a long answer; compaction after the invocation. */
async function turn(options: {
  script: Array<ModelResponse | Error>;
  runner?: Partial<RunnerOptions>;
  message?: string;
  summarizerScript?: ModelResponse[];
}) {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession({ appName, userId, sessionId: 's' });
  const model = new ScriptedModel({
    modelId: 'scripted:agent',
    script: [
      toolCallResponse([{ id: 'c1', name: 'echo', args: { text: 'ping' } }]),
      textResponse(LONG),
      ...options.script,
    ],
  });
  const runner = new Runner({
    appName,
    agent: new LlmAgent({ name: 'agent', model, instruction: 'Be brief.', tools: [echo] }),
    sessionService,
    compaction: { tokenThreshold: 300, eventRetentionSize: 0 },
    env: {},
    logger: false,
    ...options.runner,
  });
  await collect(runner.run({ userId, sessionId: 's', newMessage: options.message ?? 'hi' }));
  const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
  return { model, runner, sessionService, checkpoint: checkpoint as CompactionEvent | undefined };
}

function lastText(request: ModelRequest | undefined): string {
  const contents = request?.contents ?? [];
  return getText(contents[contents.length - 1]);
}

/** The standalone summarizer's request: one user message with the rendered events. */
function isStandalone(request: ModelRequest | undefined): boolean {
  return request?.contents.length === 1 && lastText(request).includes('<new_events>');
}

describe("summaries on the agent's cached prefix", () => {
  it("re-sends the agent's last request byte for byte, then the newer events and the instruction", async () => {
    const usage = { promptTokenCount: 900, candidatesTokenCount: 40, cachedContentTokenCount: 700 };
    const { model, checkpoint } = await turn({ script: [textResponse(SUMMARY, usage)] });
    expect(model.calls).toHaveLength(3);
    const [, agent, summarize] = model.calls;
    // The cache reads the same bytes: system instruction, tools, contents, cache key.
    expect(summarize?.systemInstruction).toBe(agent?.systemInstruction);
    expect(JSON.stringify(summarize?.tools)).toBe(JSON.stringify(agent?.tools));
    expect(summarize?.cacheKey).toBe(agent?.cacheKey);
    const sent = agent?.contents.length ?? 0;
    expect(JSON.stringify(summarize?.contents.slice(0, sent))).toBe(
      JSON.stringify(agent?.contents),
    );
    // Then the answer the agent's request got (seq 4), and the instruction.
    expect(summarize?.contents.slice(sent)).toHaveLength(2);
    expect(summarize?.contents[sent]).toEqual({ role: 'model', parts: [{ text: LONG }] });
    const instruction = lastText(summarize);
    expect(instruction).toContain('Do not call any tool');
    expect(instruction).toContain('from seq 1 through seq 4 (messages 1-4)');
    expect(instruction).toContain(
      'The seq of each message (message: seq): 1: 1, 2: 2, 3: 3, 4: 4.',
    );
    expect(instruction).not.toContain('summary so far');

    const compaction = checkpoint?.actions.compaction;
    expect(compaction?.summaryRequest).toEqual({ via: 'agent_prefix' });
    expect(compaction?.summarizer).toBe('scripted:agent');
    expect(compaction?.fallback).toBeUndefined();
    expect(checkpoint?.usageMetadata).toEqual(usage);
    // The model's own label is kept; a line without one gets the range the summary covers.
    expect(getText(compaction?.compactedContent)).toBe(
      '## User goal\n"hi" (seq 1)\n## Facts obtained\necho returned pong (seq 1-4)',
    );
  });

  it('works the same when the guard compacts before a model call, inside a tool loop', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 's' });
    const model = new ScriptedModel({
      modelId: 'scripted:agent',
      script: [
        toolCallResponse([{ id: 'c1', name: 'echo', args: { text: 'ping '.repeat(400) } }]),
        textResponse(SUMMARY),
        textResponse('done'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model, instruction: 'Be brief.', tools: [echo] }),
      sessionService,
      compaction: { tokenThreshold: 300, eventRetentionSize: 0 },
      env: {},
      logger: false,
      recall: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(model.calls).toHaveLength(3);
    const [agent, summarize, next] = model.calls;
    const sent = agent?.contents.length ?? 0;
    expect(JSON.stringify(summarize?.contents.slice(0, sent))).toBe(
      JSON.stringify(agent?.contents),
    );
    expect(JSON.stringify(summarize?.tools)).toBe(JSON.stringify(agent?.tools));
    // The call and its result, then the instruction.
    expect(summarize?.contents.slice(sent).map((content) => content.role)).toEqual([
      'model',
      'user',
      'user',
    ]);
    // The running call and its result stay verbatim: only seq 1 is summarized, told so.
    expect(lastText(summarize)).toContain('from seq 1 through seq 1 (messages 1-1)');
    expect(lastText(summarize)).toContain('(message: seq): 1: 1, 2: 2, 3: 3.');
    expect(getText(next?.contents[0])).toContain(`${SUMMARY_PREFIX}## User goal`);
    const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
    expect(checkpoint?.actions.compaction.summaryRequest).toEqual({ via: 'agent_prefix' });
  });

  it('folds the previous summary in: the rolling summary of the second compaction', async () => {
    const { model, runner, sessionService } = await turn({
      script: [
        textResponse(SUMMARY),
        toolCallResponse([{ id: 'c2', name: 'echo', args: { text: 'again' } }]),
        textResponse(LONG),
        textResponse('## User goal\n"hi" (seq 1)\n## Current state\nsecond round'),
      ],
      // No recall tool joining after the first summary: its declaration would cross the threshold.
      runner: { recall: false },
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'more' }));
    const summarize = model.calls[5];
    expect(getText(summarize?.contents[0])).toContain(`${SUMMARY_PREFIX}## User goal`);
    const instruction = lastText(summarize);
    expect(instruction).toContain('The first message is the summary so far');
    // The first compaction is seq 5; the second turn's events are seq 6-9, the user's message
    // in one message with the summary.
    expect(instruction).toContain('from seq 1 through seq 9 (messages 1-4)');
    expect(instruction).toContain('1: 1-6, 2: 7, 3: 8, 4: 9.');
    const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
    expect(checkpoint?.actions.compaction).toMatchObject({
      startSeq: 1,
      endSeq: 9,
      summaryRequest: { via: 'agent_prefix' },
    });
    expect(getText(checkpoint?.actions.compaction.compactedContent)).toContain(
      'second round (seq 1-9)',
    );
  });

  it.each([
    ['tool_call', toolCallResponse([{ name: 'echo', args: { text: 'x' } }])],
    ['empty', textResponse('  ')],
    ['blocked', { ...textResponse('withheld'), finishReason: 'content-filter' }],
    ['model_error', new Error('overloaded')],
  ])('falls back to the standalone summarizer on %s', async (reason, answer) => {
    const { model, checkpoint } = await turn({
      script: [answer, textResponse('## User goal\nstandalone')],
    });
    expect(model.calls).toHaveLength(4);
    expect(isStandalone(model.calls[3])).toBe(true);
    const compaction = checkpoint?.actions.compaction;
    expect(compaction?.summaryRequest?.via).toBe('standalone');
    expect(compaction?.summaryRequest?.reason).toMatch(new RegExp(`^${reason}: `));
    expect(getText(compaction?.compactedContent)).toBe('## User goal\nstandalone (seq 1-4)');
    expect(compaction?.fallback).toBeUndefined();
  });

  it("says on the compaction log line whether the agent's prefix was reused, and why not", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write: (chunk, _encoding, done) => {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    await turn({ script: [textResponse(SUMMARY)], runner: { logger } });
    await turn({
      script: [textResponse('  '), textResponse('## User goal\nstandalone')],
      runner: { logger },
    });
    const compactions = lines.filter((line) => line.msgType === 'compaction');
    expect(compactions.map((line) => [line.outcome, line.summaryVia])).toEqual([
      ['compacted', 'agent_prefix'],
      ['compacted', 'standalone'],
    ]);
    expect(compactions[0]?.summaryViaReason).toBeUndefined();
    expect(compactions[1]?.summaryViaReason).toMatch(/^empty: /);
  });

  it('uses the standalone summarizer when reuse is off (config or environment)', async () => {
    const off = await turn({
      script: [textResponse('## User goal\nstandalone')],
      runner: {
        compaction: { tokenThreshold: 300, eventRetentionSize: 0, reuseAgentPrefix: false },
      },
    });
    expect(isStandalone(off.model.calls[2])).toBe(true);
    expect(off.checkpoint?.actions.compaction.summaryRequest).toBeUndefined();

    const env = {
      ORRERY_COMPACTION_TOKEN_THRESHOLD: '300',
      ORRERY_COMPACTION_RETENTION_EVENTS: '0',
      ORRERY_COMPACTION_REUSE_AGENT_PREFIX: 'false',
    };
    expect(createEventsCompactionConfig({ env })?.reuseAgentPrefix).toBe(false);
    const fromEnv = await turn({
      script: [textResponse('## User goal\nstandalone')],
      runner: { compaction: undefined, env },
    });
    expect(isStandalone(fromEnv.model.calls[2])).toBe(true);
    expect(() =>
      createEventsCompactionConfig({ env: { ORRERY_COMPACTION_REUSE_AGENT_PREFIX: 'maybe' } }),
    ).toThrow(/ORRERY_COMPACTION_REUSE_AGENT_PREFIX/);
  });

  it("keeps a different summarizer model standalone, and says why the agent's prefix was not used", async () => {
    const small = new ScriptedModel({
      modelId: 'scripted:small',
      script: [textResponse('## User goal\nfrom the small model')],
    });
    const { model, checkpoint } = await turn({ script: [], runner: { summarizerModel: small } });
    expect(model.calls).toHaveLength(2);
    expect(isStandalone(small.calls[0])).toBe(true);
    expect(checkpoint?.actions.compaction.summaryRequest?.reason).toMatch(/^model_differs: /);
  });

  it('sends what the agent was sent: redacted by the same plugin', async () => {
    const { model } = await turn({
      message: 'mail ann@example.org the result',
      script: [textResponse(SUMMARY)],
      runner: { plugins: [new PiiRedactionPlugin()] },
    });
    const summarize = JSON.stringify(model.calls[2]);
    expect(summarize).not.toContain('ann@example.org');
    expect(summarize).toContain('[REDACTED:email]');
    expect(lastText(model.calls[2])).toContain('compaction_request');
  });
});

describe('AgentRequestLog', () => {
  const key = { appName, userId, sessionId: 's' };
  const model = new ScriptedModel({ script: [] });
  const request: ModelRequest = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

  it('hands out a request while its cache lives, per session and branch, the oldest forgotten', () => {
    let now = 1_000;
    const log = new AgentRequestLog({ maxSessions: 2, maxAgeMs: 300_000, now: () => now });
    log.record({
      key,
      agentName: 'a',
      model,
      request: { ...request, signal: AbortSignal.abort() },
    });
    const found = log.lookup(key);
    expect('request' in found && found.request).toEqual(request);
    expect(log.lookup(key, 'b')).toEqual({ missing: expect.stringMatching(/^no_request/) });
    now += 300_001;
    expect(log.lookup(key)).toEqual({ missing: expect.stringMatching(/^expired: .* 300 s old/) });
    log.record({ key: { ...key, sessionId: 't' }, agentName: 'a', model, request });
    log.record({ key: { ...key, sessionId: 'u' }, agentName: 'a', model, request });
    expect('missing' in log.lookup(key)).toBe(true);
    expect('request' in log.lookup({ ...key, sessionId: 'u' })).toBe(true);
  });
});
