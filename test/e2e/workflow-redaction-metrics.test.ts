import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DigestSummarizer,
  FunctionTool,
  getText,
  InMemorySessionService,
  LlmAgent,
  PiiRedactionPlugin,
  Runner,
  RunnerConfigError,
  SequentialAgent,
  ToolOutputCapPlugin,
} from '../../src/index.js';
import {
  compactionEvent,
  ScriptedModel,
  textResponse,
  toolCallResponse,
} from '../../src/testing/index.js';
import {
  appName,
  capturingLogger,
  collect,
  compactions,
  fullHistory,
  RecordingSummarizer,
  userId,
} from './helpers.js';

function workflow(): { root: SequentialAgent; models: ScriptedModel[] } {
  const models = [
    new ScriptedModel({ script: [textResponse(`triaged: ${'finding '.repeat(300)}`)] }),
    new ScriptedModel({ script: [textResponse('report written')] }),
  ];
  const root = new SequentialAgent({
    name: 'pipeline',
    subAgents: [
      new LlmAgent({ name: 'triage', model: models[0]! }),
      new LlmAgent({ name: 'reporter', model: models[1]! }),
    ],
  });
  return { root, models };
}

describe('a workflow root (no model of its own)', () => {
  it('cannot be built with compaction on and no summarizer, and the error names it', () => {
    const { root } = workflow();
    const build = () =>
      new Runner({
        appName,
        agent: root,
        sessionService: new InMemorySessionService(),
        compaction: { tokenThreshold: 1000, eventRetentionSize: 2 },
        logger: false,
      });
    expect(build).toThrow(RunnerConfigError);
    expect(build).toThrow(/summarizer/);
    expect(
      () =>
        new Runner({
          appName,
          agent: root,
          sessionService: new InMemorySessionService(),
          compaction: null,
          logger: false,
        }),
    ).not.toThrow();
  });

  it('runs its sub-agents in order and compacts with the explicit summarizer', async () => {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 'wf' });
    const { root, models } = workflow();
    const runner = new Runner({
      appName,
      agent: root,
      sessionService,
      compaction: { tokenThreshold: 200, eventRetentionSize: 1, retentionTokenBudget: 50 },
      summarizer: new DigestSummarizer(),
      logger: false,
    });
    const events = await collect(runner.run({ userId, sessionId: 'wf', newMessage: 'batch 1' }));
    expect(events.map((event) => event.author)).toEqual(['user', 'triage', 'reporter']);
    // The reporter saw the triage answer (the view is shared); the triage answer pushed the
    // session over the threshold before the reporter's call.
    expect(JSON.stringify(models[1]!.calls[0]!.contents)).toMatch(/triaged|Summary/);
    const made = compactions(await fullHistory(sessionService, 'wf'));
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made[0]!.actions.compaction?.summarizer).toBe(new DigestSummarizer().name);
  });
});

describe('PII redaction before storage', () => {
  const email = 'alice.smith@example.com';
  const apiKey = 'sk-proj-4f9c2b7d1e8a6f3c5b9d2e7a';
  const password = 'Tr0ub4dor&3';
  const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const iban = 'DE89370400440532013000';
  const secrets = [email, apiKey, password, awsSecret, iban];

  async function runSupport(summarizer: RecordingSummarizer | DigestSummarizer) {
    const sessionService = new InMemorySessionService();
    await sessionService.createSession({ appName, userId, sessionId: 'pii' });
    const lookup = new FunctionTool({
      name: 'lookup_customer',
      description: 'customer record',
      parameters: z.object({ id: z.string(), password: z.string().optional() }),
      execute: async (args) => ({
        id: args.id,
        contact: `write to ${email}`,
        config: { OPENAI_API_KEY: apiKey, AWS_SECRET_ACCESS_KEY: awsSecret },
        billing: `IBAN ${iban}`,
        // The tool got the real argument: only the stored copy is redacted.
        authenticated: args.password === password,
        notes: 'long history '.repeat(200),
      }),
    });
    const model = new ScriptedModel({
      script: [
        // The model's own call carries a password: its arguments are stored redacted too.
        toolCallResponse([
          { id: 'c1', name: 'lookup_customer', args: { id: 'cust-42', password } },
        ]),
        // A second step: the first one (no longer the step in progress) is then summarized.
        toolCallResponse([{ id: 'c2', name: 'lookup_customer', args: { id: 'cust-43' } }]),
        textResponse(`customers found, mail ${email}`),
      ],
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'support', model, tools: [lookup] }),
      sessionService,
      compaction: { tokenThreshold: 300, eventRetentionSize: 0, retentionTokenBudget: 10 },
      summarizer,
      plugins: [new PiiRedactionPlugin(), new ToolOutputCapPlugin()],
      logger: false,
    });
    await collect(
      runner.run({ userId, sessionId: 'pii', newMessage: `find customer 42, I am ${email}` }),
    );
    return { history: await fullHistory(sessionService, 'pii'), model };
  }

  it('keeps secrets and PII out of every stored event and out of the summarizer input', async () => {
    const summarizer = new RecordingSummarizer();
    const { history, model } = await runSupport(summarizer);
    const stored = JSON.stringify(history);
    for (const marker of ['email', 'api_key', 'secret', 'iban']) {
      expect(stored).toContain(`[REDACTED:${marker}]`);
    }
    expect(stored).toContain('cust-42');
    expect(stored).toContain('"authenticated":true');
    for (const secret of secrets) expect(stored, secret).not.toContain(secret);
    const call = history
      .flatMap((event) => event.content?.parts ?? [])
      .find((part) => part.functionCall);
    expect(call?.functionCall?.args).toEqual({ id: 'cust-42', password: '[REDACTED:secret]' });
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const seen = JSON.stringify(summarizer.inputs);
    expect(seen).toContain('[REDACTED:email]');
    for (const secret of secrets) expect(seen, secret).not.toContain(secret);
    // The model reads the stored view: the user's address is redacted there too.
    expect(JSON.stringify(model.calls)).not.toContain(email);
  });

  it('stores digest summaries without the secrets of the events they cover', async () => {
    const { history } = await runSupport(new DigestSummarizer());
    const summaries = compactions(history).map((event) =>
      JSON.stringify(event.actions.compaction?.compactedContent),
    );
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.join('\n')).toContain('lookup_customer');
    for (const secret of secrets) expect(summaries.join('\n'), secret).not.toContain(secret);
  });
});

function metricValue(text: string, name: string, labels: string): number {
  const escaped = `${name}{${labels}}`.replace(/[{}"=,.]/g, (char) => `\\${char}`);
  const match = new RegExp(`^${escaped} (\\d+(?:\\.\\d+)?)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

describe('metrics and logs', () => {
  it('counts each outcome, ineffective runs, summarizer failures and cache invalidations', async () => {
    const sessionService = new InMemorySessionService();
    let mode: 'ok' | 'skip' | 'fail' | 'race' = 'ok';
    const summarizer = new RecordingSummarizer((options) => {
      if (mode === 'skip') return null;
      if (mode === 'fail') throw new Error('summarizer exploded');
      return {
        content: {
          role: 'model',
          parts: [{ text: `summary of ${options.events.length} events` }],
        },
      };
    });
    const racingSummarizer = {
      name: summarizer.name,
      async summarize(options: Parameters<RecordingSummarizer['summarize']>[0]) {
        const summary = await summarizer.summarize(options);
        if (mode === 'race') {
          // Another runner lands its compaction first: this one must lose the race.
          const first = options.events[0]!;
          const last = options.events.at(-1)!;
          const key = { appName, userId, sessionId: 'metrics' };
          const { checkpoint } = await sessionService.loadView(key);
          await sessionService.appendCompaction({
            ...key,
            expectedCheckpointSeq: checkpoint?.seq ?? null,
            event: compactionEvent({
              id: 'other-runner',
              invocationId: 'other',
              startSeq: first.seq,
              endSeq: last.seq,
              startTimestamp: first.timestamp,
              endTimestamp: last.timestamp,
              text: 'other summary',
              trigger: 'token_threshold',
              tokensBefore: 1,
              tokensAfter: 1,
              summarizer: 'other',
            }),
          });
        }
        return summary;
      },
    };
    await sessionService.createSession({ appName, userId, sessionId: 'metrics' });
    const { logger, lines } = capturingLogger();
    const model = new ScriptedModel({
      script: Array.from({ length: 4 }, (_, index) =>
        textResponse(`answer ${index}: ${'detail '.repeat(200)}`),
      ),
    });
    const runner = new Runner({
      appName,
      agent: new LlmAgent({ name: 'metered', model }),
      sessionService,
      // Every turn ends over the threshold; the retained tail alone is over it (ineffective).
      // No cool-down: the turn after the failing one must call the summarizer again (the race).
      compaction: {
        tokenThreshold: 100,
        eventRetentionSize: 1,
        retentionTokenBudget: 10_000,
        summarizerCoolDownMs: 0,
      },
      summarizer: racingSummarizer,
      fallbackSummarizer: null,
      logger,
    });
    for (const next of ['ok', 'skip', 'fail', 'race'] as const) {
      mode = next;
      await collect(runner.run({ userId, sessionId: 'metrics', newMessage: `turn ${next}` }));
    }

    const text = await runner.metrics.registry.metrics();
    const total = (trigger: string, outcome: string) =>
      metricValue(
        text,
        'orrery_context_compaction_total',
        `trigger="${trigger}",outcome="${outcome}"`,
      );
    const reports = lines.filter((line) => line.msgType === 'compaction');
    const byOutcome = (outcome: string) =>
      reports.filter((line) => line.outcome === outcome).length;
    expect(byOutcome('compacted')).toBeGreaterThanOrEqual(1);
    expect(byOutcome('skipped')).toBeGreaterThanOrEqual(1);
    expect(byOutcome('failed')).toBeGreaterThanOrEqual(1);
    expect(byOutcome('conflict')).toBeGreaterThanOrEqual(1);
    for (const outcome of ['compacted', 'skipped', 'failed', 'conflict']) {
      const counted = ['token_threshold', 'overflow', 'sliding_window'].reduce(
        (sum, trigger) => sum + total(trigger, outcome),
        0,
      );
      expect(counted, outcome).toBe(byOutcome(outcome));
    }
    const compactedReports = reports.filter((line) => line.outcome === 'compacted');
    expect(metricValue(text, 'orrery_summarizer_failures_total', 'summarizer="recording"')).toBe(
      byOutcome('failed'),
    );
    expect(
      metricValue(text, 'orrery_context_compaction_ineffective_total', 'trigger="token_threshold"'),
    ).toBe(compactedReports.filter((line) => line.ineffective === true).length);
    expect(compactedReports.some((line) => line.ineffective === true)).toBe(true);
    expect(text).toContain('orrery_context_compaction_duration_seconds_count');
    expect(text).toContain('orrery_context_compaction_tokens_before_bucket');
    expect(text).toContain('orrery_context_compaction_tokens_after_bucket');

    // One log line per attempt, with the fields an operator needs.
    const compacted = compactedReports[0]!;
    expect(compacted).toMatchObject({ appName, userId, sessionId: 'metrics' });
    for (const field of ['trigger', 'startSeq', 'endSeq', 'tokensBefore', 'tokensAfter']) {
      expect(compacted[field], field).toBeDefined();
    }
    expect(typeof compacted.durationMs).toBe('number');
    expect(reports.find((line) => line.outcome === 'failed')?.level).toBe(40);
    // The global default registry is never touched.
    const { register } = await import('prom-client');
    expect(await register.metrics()).not.toContain('orrery_');
    const answers = (await fullHistory(sessionService, 'metrics'))
      .filter((event) => event.author === 'metered')
      .map((event) => getText(event));
    expect(answers).toEqual(
      Array.from({ length: 4 }, (_, index) => `answer ${index}: ${'detail '.repeat(200)}`),
    );
  });

  it('lets two Runners share one registry', async () => {
    const { Registry } = await import('prom-client');
    const registry = new Registry();
    const make = () =>
      new Runner({
        appName,
        agent: new LlmAgent({ name: 'a', model: new ScriptedModel({ script: [] }) }),
        sessionService: new InMemorySessionService(),
        compaction: null,
        metrics: { registry },
        logger: false,
      });
    const first = make();
    const second = make();
    expect(first.metrics.compactionTotal).toBe(second.metrics.compactionTotal);
  });
});
