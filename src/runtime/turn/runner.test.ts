import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidConfigError } from '../../compaction/errors.js';
import { SUMMARY_PREFIX } from '../../compaction/view.js';
import { getFunctionResponses, getText } from '../../events/event-helpers.js';
import type { Event } from '../../events/types.js';
import { ModelError } from '../../models/errors.js';
import type { ResolveModelOptions } from '../../models/resolve-model.js';
import type { Model } from '../../models/types.js';
import { SessionNotFoundError } from '../../sessions/errors.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse, toolCallResponse } from '../../testing/scripted-model.js';
import { LlmAgent } from '../agents/llm-agent.js';
import { SequentialAgent } from '../agents/sequential-agent.js';
import { RunnerConfigError } from '../errors.js';
import type { Plugin } from '../plugins/plugin.js';
import { FunctionTool } from '../tools/function-tool.js';
import { Runner } from './runner.js';

const appName = 'unit';
const userId = 'u';

async function collect(events: AsyncIterable<Event>): Promise<Event[]> {
  const collected: Event[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

async function setup(sessionId = 's') {
  const sessionService = new InMemorySessionService();
  await sessionService.createSession({ appName, userId, sessionId });
  return sessionService;
}

const echo = new FunctionTool({
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  execute: async (args) => args.text,
});

describe('Runner plugins', () => {
  it('runs hooks in order and applies their short-circuits and replacements', async () => {
    const sessionService = await setup();
    const seen: string[] = [];
    const first: Plugin = {
      name: 'first',
      beforeRun: () => {
        seen.push('beforeRun');
      },
      beforeModel: (context) => {
        seen.push(`beforeModel:${context.modelId}`);
        // The second model call never reaches the model.
        if (seen.filter((entry) => entry.startsWith('beforeModel')).length === 2) {
          return textResponse('from the plugin');
        }
      },
      beforeTool: (context) => (context.args.text === 'skip' ? 'skipped by plugin' : undefined),
      afterTool: (context) => `${String(context.result)}!`,
      onEvent: (context) =>
        context.event.author === 'user'
          ? undefined
          : { ...context.event, customMetadata: { tagged: true } },
      afterRun: () => {
        seen.push('afterRun');
      },
    };
    const second: Plugin = {
      name: 'second',
      afterTool: (context) => `${String(context.result)}?`,
    };
    const model = new ScriptedModel({
      modelId: 'scripted:main',
      script: [
        toolCallResponse([
          { id: 'a', name: 'echo', args: { text: 'hello' } },
          { id: 'b', name: 'echo', args: { text: 'skip' } },
        ]),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model, tools: [echo] }),
      sessionService,
      compaction: null,
      plugins: [first, second],
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(seen).toEqual([
      'beforeRun',
      'beforeModel:scripted:main',
      'beforeModel:scripted:main',
      'afterRun',
    ]);
    expect(getFunctionResponses(events[2]!).map((response) => response.response)).toEqual([
      { result: 'hello!?' },
      { result: 'skipped by plugin!?' },
    ]);
    expect(getText(events[3]!)).toBe('from the plugin');
    expect(events[0]!.customMetadata).toBeUndefined();
    expect(events.slice(1).every((event) => event.customMetadata?.tagged === true)).toBe(true);
    expect(model.remaining).toBe(0);
  });

  it('beforeRun can answer the turn without running the agent', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      plugins: [
        { name: 'gate', beforeRun: () => ({ role: 'model', parts: [{ text: 'maintenance' }] }) },
      ],
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(events.map((event) => [event.author, getText(event)])).toEqual([
      ['user', 'hi'],
      ['agent', 'maintenance'],
    ]);
    expect(model.calls).toHaveLength(0);
  });

  it('beforeCompaction returning false skips the compaction', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [textResponse(`long ${'answer '.repeat(300)}`)] });
    const plans: number[] = [];
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      summarizer: { name: 'never', summarize: async () => null },
      plugins: [
        {
          name: 'veto',
          beforeCompaction: (context) => {
            plans.push(context.plan.endSeq);
            expect(context.sessionId).toBe('s');
            return false;
          },
        },
      ],
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    expect(plans).toEqual([2]);
    expect(await runner.metrics.registry.metrics()).toMatch(
      /orrery_context_compaction_total\{trigger="token_threshold",outcome="skipped"\} 1/,
    );
  });
});

describe('Runner defaults', () => {
  it("summarizes with the agent's own model when no summarizer is given", async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({
      script: [
        textResponse(`first ${'answer '.repeat(300)}`),
        // The after-invocation compaction asks the same model for the summary.
        (request) => {
          expect(JSON.stringify(request.contents)).toContain('first answer');
          return textResponse('The user said hi; the agent answered at length.');
        },
        textResponse('second'),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      env: {},
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'again' }));
    expect(getText(model.calls[2]!.contents[0]!)).toContain(
      `${SUMMARY_PREFIX}The user said hi; the agent answered at length.`,
    );
  });

  it('falls back to the digest when the model summarizer fails, and counts the failure', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({
      modelId: 'scripted:agent',
      script: [
        textResponse(`first ${'answer '.repeat(300)}`),
        // The summary on the agent's prefix first, then the standalone summarizer.
        new ModelError({ kind: 'fatal', statusCode: 401, message: 'summarizer key revoked' }),
        new ModelError({ kind: 'fatal', statusCode: 401, message: 'summarizer key revoked' }),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0 },
      env: {},
      logger: false,
    });
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
    // The digest wrote it, and the event says so and why: the model gets no credit.
    expect(checkpoint?.actions.compaction.summarizer).toBe('digest');
    expect(checkpoint?.actions.compaction.fallback).toEqual({
      from: 'scripted:agent',
      reason: expect.stringContaining('summarizer key revoked'),
    });
    expect(checkpoint?.actions.compaction.summaryRequest).toEqual({
      via: 'standalone',
      reason: expect.stringMatching(/^model_error: .*summarizer key revoked/),
    });
    const metrics = await runner.metrics.registry.metrics();
    expect(metrics).toMatch(/orrery_summarizer_failures_total\{summarizer="scripted:agent"\} 1/);
    expect(metrics).toMatch(
      /orrery_summarizer_fallbacks_total\{from="scripted:agent",to="digest"\} 1/,
    );
  });

  it('throws for a missing session and stops on an aborted signal', async () => {
    const sessionService = await setup();
    const model = new ScriptedModel({ script: [] });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model }),
      sessionService,
      compaction: null,
      logger: false,
    });
    await expect(
      collect(runner.run({ userId, sessionId: 'nope', newMessage: 'hi' })),
    ).rejects.toThrow(SessionNotFoundError);
    const controller = new AbortController();
    controller.abort();
    await expect(
      collect(runner.run({ userId, sessionId: 's', newMessage: 'hi', signal: controller.signal })),
    ).rejects.toThrow();
    expect(model.calls).toHaveLength(0);
  });
});

describe('Runner summarizer model (docs/architecture.md#summarizers)', () => {
  const compaction = { tokenThreshold: 100, eventRetentionSize: 0 };
  const longAnswer = () => textResponse(`long ${'answer '.repeat(300)}`);
  const summary = (text: string) => textResponse(text);

  /** A resolver that hands out scripted models and records what it was asked for. */
  function recordingResolver(models: Record<string, Model>) {
    const asked: ResolveModelOptions[] = [];
    const resolve = async (options: ResolveModelOptions) => {
      asked.push(options);
      const model = models[options.modelId];
      if (!model) throw new Error(`no model ${options.modelId}`);
      return model;
    };
    return { asked, resolve };
  }

  async function compactOnce(runner: Runner, sessionService: InMemorySessionService) {
    await collect(runner.run({ userId, sessionId: 's', newMessage: 'hi' }));
    const { checkpoint } = await sessionService.loadView({ appName, userId, sessionId: 's' });
    return checkpoint?.actions.compaction;
  }

  it('ORRERY_COMPACTION_MODEL picks the summarizer model, built at the first compaction', async () => {
    const sessionService = await setup();
    const agentModel = new ScriptedModel({ modelId: 'openai:gpt-4o', script: [longAnswer()] });
    const cheap = new ScriptedModel({
      modelId: 'google:gemini-2.5-flash-lite',
      script: [summary('Summary by the cheap model.')],
    });
    const env = { ORRERY_COMPACTION_MODEL: 'google:gemini-2.5-flash-lite', GEMINI_API_KEY: 'k' };
    const resolver = recordingResolver({ 'google:gemini-2.5-flash-lite': cheap });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model: agentModel }),
      sessionService,
      compaction,
      env,
      resolveModel: resolver.resolve,
      logger: false,
    });
    expect(resolver.asked).toHaveLength(0);
    const made = await compactOnce(runner, sessionService);
    expect(resolver.asked).toEqual([{ modelId: 'google:gemini-2.5-flash-lite', env }]);
    expect(made?.summarizer).toBe('google:gemini-2.5-flash-lite');
    expect(getText(made?.compactedContent)).toContain('Summary by the cheap model.');
    expect(cheap.calls).toHaveLength(1);
    expect(agentModel.calls).toHaveLength(1);
  });

  it('summarizes agents on Google with the Google default when nothing is set', async () => {
    const sessionService = await setup();
    const agentModel = new ScriptedModel({
      modelId: 'google:gemini-2.5-pro',
      script: [longAnswer()],
    });
    const flash = new ScriptedModel({
      modelId: 'google:gemini-flash-latest',
      script: [summary('Flash summary.')],
    });
    const resolver = recordingResolver({ 'google:gemini-flash-latest': flash });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model: agentModel }),
      sessionService,
      compaction,
      env: {},
      resolveModel: resolver.resolve,
      logger: false,
    });
    expect((await compactOnce(runner, sessionService))?.summarizer).toBe(
      'google:gemini-flash-latest',
    );
    expect(resolver.asked.map((options) => options.modelId)).toEqual([
      'google:gemini-flash-latest',
    ]);
  });

  it('summarizerModel wins over the environment', async () => {
    const sessionService = await setup();
    const given = new ScriptedModel({ modelId: 'scripted:given', script: [summary('Given.')] });
    const resolver = recordingResolver({});
    const runner = new Runner({
      appName,
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ modelId: 'openai:gpt-4o', script: [longAnswer()] }),
      }),
      sessionService,
      compaction,
      summarizerModel: given,
      env: { ORRERY_COMPACTION_MODEL: 'google:gemini-2.5-flash-lite' },
      resolveModel: resolver.resolve,
      logger: false,
    });
    expect((await compactOnce(runner, sessionService))?.summarizer).toBe('scripted:given');
    expect(resolver.asked).toHaveLength(0);
  });

  it("reuses the agent's model when the environment names the same id", async () => {
    const sessionService = await setup();
    const agentModel = new ScriptedModel({
      modelId: 'openai:gpt-4o-mini',
      script: [longAnswer(), summary('Same model summary.')],
    });
    const resolver = recordingResolver({});
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model: agentModel }),
      sessionService,
      compaction,
      env: { ORRERY_COMPACTION_MODEL: 'openai:gpt-4o-mini' },
      resolveModel: resolver.resolve,
      logger: false,
    });
    expect((await compactOnce(runner, sessionService))?.summarizer).toBe('openai:gpt-4o-mini');
    expect(resolver.asked).toHaveLength(0);
    expect(agentModel.remaining).toBe(0);
  });

  it('ORRERY_COMPACTION_MODEL naming a provider without a key fails at construction, naming both', () => {
    const agentModel = new ScriptedModel({ modelId: 'openai:gpt-4o', script: [] });
    // The real resolveModel's checks: no GEMINI_API_KEY in this environment, and no network.
    const build = () =>
      new Runner({
        appName,
        agent: new LlmAgent({ name: 'agent', model: agentModel }),
        sessionService: new InMemorySessionService(),
        compaction,
        env: { ORRERY_COMPACTION_MODEL: 'google:gemini-2.5-flash-lite', OPENAI_API_KEY: 'k' },
        logger: false,
      });
    expect(build).toThrow(RunnerConfigError);
    expect(build).toThrow(
      /^ORRERY_COMPACTION_MODEL: .*'google:gemini-2\.5-flash-lite'.*GEMINI_API_KEY/,
    );
  });

  it("summarizes with the agent's model when the implicit Google default has no key: warned at construction, recorded on each compaction", async () => {
    const sessionService = await setup();
    await sessionService.createSession({ appName, userId, sessionId: 's2' });
    const agentModel = new ScriptedModel({
      modelId: 'google:gemini-2.5-pro',
      script: [longAnswer(), summary('First.'), longAnswer(), summary('Second.')],
    });
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'agent', model: agentModel }),
      sessionService,
      compaction,
      env: {},
      logger,
    });
    const warnings = () => lines.filter((line) => line.includes('summarizer_model_unavailable'));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('google:gemini-flash-latest');
    expect(warnings()[0]).toContain('GEMINI_API_KEY');
    const made = await compactOnce(runner, sessionService);
    expect(made?.summarizer).toBe('google:gemini-2.5-pro');
    expect(made?.fallback).toEqual({
      from: 'google:gemini-flash-latest',
      reason: expect.stringContaining('GEMINI_API_KEY'),
    });
    await collect(runner.run({ userId, sessionId: 's2', newMessage: 'hi' }));
    const second = await sessionService.loadView({ appName, userId, sessionId: 's2' });
    expect(getText(second.checkpoint?.actions.compaction.compactedContent)).toContain('Second.');
    expect(warnings()).toHaveLength(1);
    expect(agentModel.remaining).toBe(0);
  });

  it('checks the summarizer at construction: workflow roots, bad ids, unknown providers', () => {
    const workflow = () =>
      new SequentialAgent({
        name: 'pipeline',
        subAgents: [new LlmAgent({ name: 'step', model: new ScriptedModel({ script: [] }) })],
      });
    const build = (env: Record<string, string>) => () =>
      new Runner({
        appName,
        agent: workflow(),
        sessionService: new InMemorySessionService(),
        compaction,
        env,
        logger: false,
      });
    expect(build({})).toThrow(RunnerConfigError);
    expect(build({})).toThrow(/^summarizer: /);
    // Naming the summarizer model in the environment is an explicit choice for a workflow too.
    expect(
      build({ ORRERY_COMPACTION_MODEL: 'google:gemini-2.5-flash-lite', GEMINI_API_KEY: 'k' }),
    ).not.toThrow();
    expect(build({ ORRERY_COMPACTION_MODEL: 'flash' })).toThrow(InvalidConfigError);
    expect(build({ ORRERY_COMPACTION_MODEL: 'flash' })).toThrow(/ORRERY_COMPACTION_MODEL/);
    expect(build({ ORRERY_COMPACTION_MODEL: 'mistral:large' })).toThrow(
      /ORRERY_COMPACTION_MODEL: .*unknown provider 'mistral'/,
    );
  });

  it('checks a hand-built compaction config as createEventsCompactionConfig does', () => {
    const agent = new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [] }) });
    const build = (compaction: unknown) => () =>
      new Runner({
        appName,
        agent,
        sessionService: new InMemorySessionService(),
        compaction: compaction as never,
        env: {},
        logger: false,
      });
    const cases: Array<[unknown, RegExp]> = [
      [{ compactionInterval: 3 }, /^Invalid overlapSize=undefined: must be set together/],
      [{}, /^Invalid tokenThreshold=undefined: no trigger/],
      [{ tokenThreshold: -1, eventRetentionSize: 2 }, /^Invalid tokenThreshold=-1: /],
      [
        { tokenThreshold: 10, eventRetentionSize: 2, summarizerTimeoutMs: 0 },
        /summarizerTimeoutMs/,
      ],
      [{ tokenThreshold: 10, eventRetentionSize: 2, treshold: 5 }, /^Invalid treshold=5: /],
    ];
    for (const [compaction, message] of cases) {
      expect(build(compaction)).toThrow(InvalidConfigError);
      expect(build(compaction)).toThrow(message);
    }
    const valid = build({ tokenThreshold: 10, eventRetentionSize: 2 })();
    expect(valid.compactionConfig).toEqual({ tokenThreshold: 10, eventRetentionSize: 2 });
    expect(build(null)().compactionConfig).toBeNull();
  });

  it('reads the compaction config from the injected environment', () => {
    const agent = new LlmAgent({ name: 'agent', model: new ScriptedModel({ script: [] }) });
    const build = (env: Record<string, string>) =>
      new Runner({
        appName,
        agent,
        sessionService: new InMemorySessionService(),
        env,
        logger: false,
      });
    expect(build({ ORRERY_CONTEXT_COMPACTION: 'false' }).compactionConfig).toBeNull();
    // A 0 threshold alone is compaction off, not the sliding window at its default interval.
    expect(build({ ORRERY_COMPACTION_TOKEN_THRESHOLD: '0' }).compactionConfig).toBeNull();
    expect(
      build({ ORRERY_COMPACTION_TOKEN_THRESHOLD: '1234' }).compactionConfig?.tokenThreshold,
    ).toBe(1234);
  });
});
