/**
 * A long investigation as a user runs it: the real `@ai-sdk/google` provider over real HTTP to a
 * local Gemini endpoint, on SQLite in a temp dir, ~20 turns with parallel calls, a tool that
 * throws and a tool that returns large JSON, and a token threshold small enough that compaction
 * runs again and again. Every request the endpoint received is checked the way Gemini would
 * check it, and the stored history is compared with what the Runner yielded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Event } from '../../src/index.js';
import { FunctionTool, fromAiSdk, LlmAgent, Runner } from '../../src/index.js';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { appName, collect, compactions, deferred, fullHistory, userId } from './helpers.js';
import {
  type GeminiPart,
  geminiViolations,
  type ReceivedRequest,
  type ScriptedGemini,
  startScriptedGemini,
} from './scripted-gemini.js';

const agentModelName = 'gemini-2.5-flash';
const summarizerModelName = 'gemini-flash-latest';
const tokenThreshold = 6_000;
const turns = 20;

let server: ScriptedGemini;
let directory: string;
let sessionService: SqliteSessionService;

beforeEach(async () => {
  server = await startScriptedGemini({
    agentModel: agentModelName,
    summarizerModel: summarizerModelName,
  });
  directory = mkdtempSync(join(tmpdir(), 'orrery-long-session-'));
  sessionService = new SqliteSessionService({ path: join(directory, 'orrery.db') });
});

afterEach(async () => {
  await sessionService.close();
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

/** ~12 KB of metrics: the kind of JSON a monitoring API returns. */
function metricsFor(service: string, window: number) {
  return {
    service,
    window,
    unit: 'ms',
    points: Array.from({ length: 120 }, (_, index) => ({
      timestamp: `2025-03-0${(window % 9) + 1}T10:${String(index % 60).padStart(2, '0')}:00Z`,
      p50: 40 + ((index * 7) % 13),
      p99: 300 + ((index * 31) % 170),
      errors: (index * window) % 5,
      host: `checkout-${index % 4}.prod.internal`,
    })),
  };
}

/** Tool runs seen by the test (name and whether it saw the run's signal). */
const toolRuns: { name: string; signal: boolean }[] = [];

function tools(options: { onDeployWait?: (signal: AbortSignal) => Promise<unknown> } = {}) {
  toolRuns.length = 0;
  return [
    new FunctionTool({
      name: 'search_logs',
      description: 'Search the service logs',
      parameters: z.object({ query: z.string(), turn: z.number().int() }),
      execute: async (args, context) => {
        toolRuns.push({ name: 'search_logs', signal: context.signal !== undefined });
        return Array.from(
          { length: 8 },
          (_, index) =>
            `2025-03-01T10:0${index}:00Z checkout ERROR ${args.query} upstream=payments-${index % 3} status=503 trace=${args.turn}-${index}`,
        ).join('\n');
      },
    }),
    new FunctionTool({
      name: 'get_metrics',
      description: 'Latency metrics of a service',
      parameters: z.object({ service: z.string(), window: z.number().int() }),
      execute: async (args) => {
        toolRuns.push({ name: 'get_metrics', signal: true });
        return metricsFor(args.service, args.window);
      },
    }),
    new FunctionTool({
      name: 'restart_service',
      description: 'Restart a service',
      parameters: z.object({ service: z.string(), attempt: z.number().int() }),
      execute: async (args) => {
        toolRuns.push({ name: 'restart_service', signal: true });
        throw new Error(`permission denied: cannot restart ${args.service}`);
      },
    }),
    new FunctionTool({
      name: 'wait_for_deploy',
      description: 'Wait until a deploy finishes',
      parameters: z.object({ deploy: z.string() }),
      execute: async (_args, context) => {
        toolRuns.push({ name: 'wait_for_deploy', signal: context.signal !== undefined });
        if (!options.onDeployWait || !context.signal) return { done: true };
        return options.onDeployWait(context.signal);
      },
    }),
  ];
}

const call = (name: string, args: Record<string, unknown>): GeminiPart => ({
  functionCall: { name, args },
});

/** A long final report: investigations end with one, and it pushes the session over. */
function reportOf(turn: number, lineCount = 30): GeminiPart[] {
  const lines = Array.from(
    { length: lineCount },
    (_, index) =>
      `Finding ${turn}.${index}: checkout calls payments-${index % 3} which times out after 30s under load; retries amplify the error rate.`,
  );
  return [{ text: `Turn ${turn} report.\n${lines.join('\n')}` }];
}

/** The agent's answers for turn `turn`: parallel calls, a failing tool, large JSON, or text. */
function scriptFor(turn: number, reportLines?: number): GeminiPart[][] {
  const report = (at: number) => reportOf(at, reportLines);
  switch (turn % 4) {
    case 0:
      return [
        [
          call('search_logs', { query: `timeout ${turn}`, turn }),
          call('get_metrics', { service: 'checkout', window: turn }),
        ],
        report(turn),
      ];
    case 1:
      return [[call('restart_service', { service: 'payments', attempt: turn })], report(turn)];
    case 2:
      return [
        [
          call('search_logs', { query: `503 ${turn}`, turn }),
          call('search_logs', { query: `retry ${turn}`, turn }),
          call('get_metrics', { service: 'payments', window: turn }),
        ],
        [call('search_logs', { query: `pool exhausted ${turn}`, turn })],
        report(turn),
      ];
    default:
      return [[{ text: `Turn ${turn}: nothing new to check, waiting for the next question.` }]];
  }
}

function makeRunner(options: { background?: boolean; agentTools?: FunctionTool[] } = {}) {
  const provider = createGoogleGenerativeAI({ baseURL: server.baseURL, apiKey: 'test-key' });
  return new Runner({
    appName,
    agent: new LlmAgent({
      name: 'investigator',
      model: fromAiSdk(provider(agentModelName)),
      instruction: 'Investigate production incidents with the tools; report findings.',
      tools: options.agentTools ?? tools(),
    }),
    sessionService,
    compaction: { tokenThreshold, eventRetentionSize: 4 },
    summarizerModel: fromAiSdk(provider(summarizerModelName)),
    logger: false,
    background: options.background,
  });
}

/** Every request the endpoint received: valid for Gemini, and signatures sent back. */
function expectValidRequests(stored: Event[]): void {
  expect(server.failures).toEqual([]);
  const signatureOf = new Map<string, string>();
  for (const event of stored) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall && part.thoughtSignature) {
        signatureOf.set(part.functionCall.id, part.thoughtSignature);
      }
    }
  }
  for (const request of server.requests) {
    expect(geminiViolations(request.body), `request #${request.index} (${request.kind})`).toEqual(
      [],
    );
    if (request.kind !== 'agent') continue;
    for (const content of request.body.contents) {
      for (const part of content.parts) {
        if (!part.functionCall) continue;
        // Gemini 3 rejects a replayed call without its signature.
        expect(part.thoughtSignature, `request #${request.index} ${part.functionCall.name}`).toBe(
          signatureOf.get(part.functionCall.id ?? ''),
        );
      }
    }
  }
}

/** The largest step (one model turn and the responses to it) any request held, in tokens. */
function largestStepTokens(requests: ReceivedRequest[]): number {
  let largest = 0;
  for (const request of requests) {
    const contents = request.body.contents;
    contents.forEach((content, index) => {
      if (content.role !== 'model') return;
      const step = [content, contents[index + 1]].filter(Boolean);
      largest = Math.max(largest, Math.ceil(Buffer.byteLength(JSON.stringify(step)) / 4));
    });
  }
  return largest;
}

describe('a long investigation over the real Google provider and SQLite', () => {
  it('stays valid and bounded over 20 turns with repeated compaction, and loses nothing', async () => {
    await sessionService.createSession({ appName, userId, sessionId: 'incident' });
    const runner = makeRunner();
    const yielded: Event[] = [];
    for (let turn = 0; turn < turns; turn++) {
      server.enqueue(...scriptFor(turn));
      const events = await collect(
        runner.run({
          userId,
          sessionId: 'incident',
          newMessage: `Turn ${turn}: what is causing the checkout errors now?`,
        }),
      );
      expect(server.queued(), `turn ${turn} used its whole script`).toBe(0);
      yielded.push(...events);
    }

    const stored = await fullHistory(sessionService, 'incident');
    expectValidRequests(stored);

    // Compaction ran again and again, each a rolling summary over the previous one.
    const made = compactions(stored);
    expect(made.length).toBeGreaterThanOrEqual(4);
    const summarizerRequests = server.requests.filter((request) => request.kind === 'summarizer');
    expect(summarizerRequests.length).toBe(made.length);
    for (const [index, request] of summarizerRequests.entries()) {
      if (index === 0) continue;
      expect(JSON.stringify(request.body)).toContain(`SUMMARY #${index}`);
    }

    // Bounded: once compaction has started, no request is over threshold + one step.
    const agentRequests = server.requests.filter((request) => request.kind === 'agent');
    const firstCompacted = agentRequests.findIndex((request) =>
      JSON.stringify(request.body.contents[0]).includes('Summary of the conversation so far'),
    );
    expect(firstCompacted).toBeGreaterThan(0);
    const step = largestStepTokens(agentRequests);
    for (const request of agentRequests.slice(firstCompacted)) {
      expect(request.promptTokenCount, `request #${request.index}`).toBeLessThanOrEqual(
        tokenThreshold + step,
      );
    }
    // Without compaction the last request would hold the whole session.
    const wholeSession = Buffer.byteLength(
      JSON.stringify(stored.filter((event) => event.content).map((event) => event.content)),
    );
    expect(agentRequests.at(-1)!.bytes).toBeLessThan(wholeSession / 2);

    // Lossless: the full history is every yielded event, unchanged, plus the compactions.
    expect(stored.filter((event) => !event.actions.compaction)).toEqual(yielded);
    const seqs = stored.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((left, right) => left - right));

    // Usage reported by the provider is stored on each model event, request by request.
    const modelEvents = yielded.filter((event) => event.content?.role === 'model');
    expect(modelEvents.map((event) => event.usageMetadata?.promptTokenCount)).toEqual(
      agentRequests.map((request) => request.promptTokenCount),
    );
    // The failing tool reached the model as an error, the large JSON whole in storage.
    const responses = yielded.flatMap((event) =>
      (event.content?.parts ?? []).flatMap((part) =>
        part.functionResponse ? [part.functionResponse] : [],
      ),
    );
    expect(responses.filter((response) => response.name === 'restart_service')).toHaveLength(5);
    for (const response of responses.filter((item) => item.name === 'restart_service')) {
      expect(response.response).toEqual({ error: 'permission denied: cannot restart payments' });
    }
    const metrics = responses.find((response) => response.name === 'get_metrics')!;
    expect(metrics.response).toEqual(metricsFor('checkout', 0));
  });

  it('aborts mid-turn at the model and at a tool: the fetch is cancelled, the session stays usable', async () => {
    await sessionService.createSession({ appName, userId, sessionId: 'abort' });
    const toolStarted = deferred<AbortSignal>();
    const runner = makeRunner({
      agentTools: tools({
        onDeployWait: (signal) => {
          toolStarted.resolve(signal);
          return new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          });
        },
      }),
    });
    const run = (message: string, signal?: AbortSignal) =>
      collect(runner.run({ userId, sessionId: 'abort', newMessage: message, signal }));

    for (let turn = 0; turn < 2; turn++) {
      server.enqueue(...scriptFor(turn));
      await run(`Turn ${turn}: look again`);
    }

    // 0. Abort while the summarizer runs (turn 2 goes over the threshold mid-turn).
    const atSummarizer = new AbortController();
    server.enqueue(...scriptFor(2));
    const heldSummary = server.hold('summarizer');
    const abortedAtSummary = run('Turn 2: dig deeper', atSummarizer.signal);
    await Promise.race([heldSummary.received, abortedAtSummary]);
    atSummarizer.abort();
    await expect(abortedAtSummary).rejects.toThrow();
    await heldSummary.closed;
    heldSummary.release();
    expect(server.requests.at(-1)).toMatchObject({ kind: 'summarizer', aborted: true });
    expect(compactions(await fullHistory(sessionService, 'abort'))).toEqual([]);
    server.clearQueue();

    // 1. Abort while the model request is in flight.
    const atModel = new AbortController();
    server.enqueue(...scriptFor(0));
    const held = server.hold('agent');
    const aborted = run('Turn 3: and now?', atModel.signal);
    await held.received;
    atModel.abort();
    await expect(aborted).rejects.toThrow();
    await held.closed;
    held.release();
    expect(server.requests.at(-1)!.aborted).toBe(true);
    expect(server.requests.at(-1)!.status).toBeUndefined();
    // The aborted turn's answers were never consumed.
    expect(server.queued()).toBe(2);
    server.clearQueue();

    // 2. Abort while a tool runs: the tool gets the run's signal.
    server.enqueue([call('wait_for_deploy', { deploy: 'deploy-42' })]);
    const atTool = new AbortController();
    const abortedAtTool = run('Turn 4: wait for the deploy', atTool.signal);
    const toolSignal = await toolStarted.promise;
    expect(toolSignal.aborted).toBe(false);
    atTool.abort();
    await expect(abortedAtTool).rejects.toThrow();
    expect(toolSignal.aborted).toBe(true);

    // The next run works, over a view Gemini accepts (the dangling call answered in the view).
    server.enqueue(...scriptFor(1));
    const after = await run('Turn 5: where are we?');
    expect(after.at(-1)!.content?.parts[0]?.text).toContain('Turn 1 report');
    const stored = await fullHistory(sessionService, 'abort');
    expectValidRequests(stored);
    const last = server.requests.filter((request) => request.kind === 'agent').at(-2)!;
    expect(JSON.stringify(last.body)).toContain('No result was recorded for this call.');
    // Nothing half-written: every stored call either has its response or is the aborted one.
    const calls = stored.flatMap((event) =>
      (event.content?.parts ?? []).flatMap((part) =>
        part.functionCall ? [part.functionCall] : [],
      ),
    );
    const answered = new Set(
      stored.flatMap((event) =>
        (event.content?.parts ?? []).flatMap((part) =>
          part.functionResponse ? [part.functionResponse.id] : [],
        ),
      ),
    );
    expect(calls.filter((item) => !answered.has(item.id)).map((item) => item.name)).toEqual([
      'wait_for_deploy',
    ]);
  });

  it('background: true over several turns: run() returns first, the next run reads the summary', async () => {
    await sessionService.createSession({ appName, userId, sessionId: 'background' });
    const runner = makeRunner({ background: true });
    // Long reports: the session goes over the threshold at the end of a turn, so the
    // after-invocation compaction (the one that runs in the background) has work to do.
    // Explicit synchronization, no clock: a summarizer request that arrives between two turns
    // (a background compaction's) is held until the test releases it.
    let inRun = false;
    const turn = async (number: number) => {
      server.enqueue(...scriptFor(number, 90));
      inRun = true;
      try {
        return await collect(
          runner.run({ userId, sessionId: 'background', newMessage: `Turn ${number}: go on` }),
        );
      } finally {
        inRun = false;
      }
    };
    const yielded: Event[] = [];
    const observed: number[] = [];
    let held = server.hold('summarizer', { when: () => !inRun });
    const lastTurn = 9;
    let number = 0;
    yielded.push(...(await turn(number)));
    for (;;) {
      expect(server.queued()).toBe(0);
      const landed = compactions(await fullHistory(sessionService, 'background')).length;
      // Either the turn's background compaction reaches the summarizer (held there, so flush()
      // cannot settle first) or there is none and flush() settles: no timing decides which.
      const outcome = await Promise.race([
        held.received.then(() => 'summarizing' as const),
        runner.flush().then(() => 'idle' as const),
      ]);
      if (outcome === 'idle') {
        if (number === lastTurn) break;
        number++;
        yielded.push(...(await turn(number)));
        continue;
      }
      // run() has returned while its compaction is still with the summarizer.
      expect(compactions(await fullHistory(sessionService, 'background'))).toHaveLength(landed);
      observed.push(server.requests.filter((request) => request.kind === 'summarizer').length);
      const release = held.release;
      held = server.hold('summarizer', { when: () => !inRun });
      if (number === lastTurn) {
        release();
        break;
      }
      // The next turn waits for it: its first request already holds that summary.
      const nextRequest = server.requests.length;
      number++;
      const next = turn(number);
      release();
      yielded.push(...(await next));
      const first = server.requests.slice(nextRequest).find((request) => request.kind === 'agent')!;
      expect(JSON.stringify(first.body.contents[0])).toContain(`SUMMARY #${observed.at(-1)}`);
    }
    await runner.flush();
    expect(server.summarizerInFlight()).toBe(0);
    expect(observed.length).toBeGreaterThanOrEqual(2);

    const stored = await fullHistory(sessionService, 'background');
    expectValidRequests(stored);
    expect(stored.filter((event) => !event.actions.compaction)).toEqual(yielded);
    // Every summarizer answer became a compaction: none lost to a race with the next turn.
    expect(compactions(stored)).toHaveLength(
      server.requests.filter((request) => request.kind === 'summarizer').length,
    );
  });
});
