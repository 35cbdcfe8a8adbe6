/**
 * The failure orrery exists to prevent: an agent whose tool output accumulates until the next
 * request is over the provider's byte ceiling (Gemini: 400 INVALID_ARGUMENT "Request payload
 * size exceeds the limit"). Real `@ai-sdk/google` provider, real HTTP, a local fake endpoint.
 */
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { EventsCompactionConfig } from '../../src/index.js';
import {
  ContextOverflowError,
  createEventsCompactionConfig,
  DigestSummarizer,
  FunctionTool,
  fromAiSdk,
  getFunctionResponses,
  getText,
  InMemorySessionService,
  LlmAgent,
  ModelError,
  Runner,
} from '../../src/index.js';
import { capToolResult, ToolOutputCapPlugin } from '../../src/runtime/plugins/tool-output-cap.js';
import { type FakeGemini, startFakeGemini } from './fake-gemini.js';
import { appName, collect, compactions, fullHistory, userId } from './helpers.js';

/**
 * Sizes at 1/16 scale: Gemini's 10 MiB request limit (the fake endpoint takes it as a
 * parameter), a 4 MiB tool cap and an 8 MiB ceiling become 640, 256 and 512 KiB. The ratios and
 * so the request sequence are the same; every request's contents are generated, capped,
 * estimated, serialized and summarized at a sixteenth of the bytes (the full-size run took
 * ~25 s a test on a loaded machine).
 */
const MiB = (1024 * 1024) / 16;
/** What the wire format (Gemini JSON, instruction, tools) adds to the runtime's measure. */
const wireSlack = 4 * 1024;
const geminiLimit = 10 * MiB;
const toolCap = 4 * MiB;
const parts = 5;

/** Log lines for part `n` a little over the cap, so the plugin cuts each to the cap. */
function logOutput(part: number): string {
  const line = (index: number) =>
    `2025-01-0${part}T10:00:${String(index % 60).padStart(2, '0')}Z part=${part} worker=${index % 7} GET /api/items/${index} 200 ${index % 97}ms\n`;
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < toolCap + 100 * 64; index++) {
    const text = line(index);
    lines.push(text);
    size += text.length;
  }
  return lines.join('');
}

const outputs = Array.from({ length: parts }, (_, index) => logOutput(index + 1));

function fetchLogsTool(): FunctionTool {
  return new FunctionTool({
    name: 'fetch_logs',
    description: 'Fetch one part of the service logs',
    parameters: z.object({ part: z.number().int().min(1).max(parts) }),
    execute: async (args) => outputs[args.part - 1],
  });
}

let server: FakeGemini | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Function calls for the first five accepted requests, then the final answer. */
async function startServer(): Promise<FakeGemini> {
  server = await startFakeGemini({
    maxBodyBytes: geminiLimit,
    answer: (index) =>
      index < parts
        ? {
            role: 'model',
            parts: [{ functionCall: { name: 'fetch_logs', args: { part: index + 1 } } }],
          }
        : { role: 'model', parts: [{ text: 'All five parts read: no errors found.' }] },
  });
  return server;
}

async function runInvestigation(options: {
  compaction: EventsCompactionConfig | null;
  contextWindowTokens?: number;
}) {
  const fake = await startServer();
  const provider = createGoogleGenerativeAI({ baseURL: fake.baseURL, apiKey: 'test' });
  const model = fromAiSdk(provider('gemini-2.5-flash'), {
    contextWindowTokens: options.contextWindowTokens,
  });
  const sessionService = new InMemorySessionService();
  await sessionService.createSession({ appName, userId, sessionId: 'incident' });
  const runner = new Runner({
    appName,
    agent: new LlmAgent({
      name: 'investigator',
      model,
      instruction: 'Read every log part, then report.',
      tools: [fetchLogsTool()],
    }),
    sessionService,
    compaction: options.compaction,
    plugins: [new ToolOutputCapPlugin({ maxToolResultBytes: toolCap })],
    logger: false,
  });
  const run = collect(
    runner.run({ userId, sessionId: 'incident', newMessage: 'Investigate the 5xx spike.' }),
  );
  return { fake, run, sessionService };
}

async function expectLosslessHistory(sessionService: InMemorySessionService): Promise<void> {
  const history = await fullHistory(sessionService, 'incident');
  const responses = history.flatMap((event) => getFunctionResponses(event));
  expect(responses).toHaveLength(parts);
  responses.forEach((response, index) => {
    // Stored exactly as the cap plugin left it: compaction and view truncation never touch it.
    const expected = capToolResult({ result: outputs[index], maxBytes: toolCap });
    expect(response.response).toEqual({ result: expected });
  });
}

describe('a session that outgrows the provider byte ceiling', () => {
  it('fails with Gemini 400 INVALID_ARGUMENT when compaction is off', async () => {
    const { fake, run, sessionService } = await runInvestigation({ compaction: null });
    const error = await run.catch((caught: unknown) => caught);

    expect(ContextOverflowError.isInstance(error)).toBe(true);
    const cause = (error as ContextOverflowError).cause;
    expect(ModelError.isInstance(cause)).toBe(true);
    expect((cause as ModelError).statusCode).toBe(400);
    expect((cause as ModelError).message).toMatch(/Request payload size exceeds the limit/);
    expect(fake.requests.at(-1)).toMatchObject({ status: 400 });
    expect(fake.requests.at(-1)!.bytes).toBeGreaterThan(geminiLimit);
    // Three results fit (~12 MiB would not): the fourth request is the one rejected.
    expect(fake.requests.filter((request) => request.status === 200)).toHaveLength(3);
    const stored = await fullHistory(sessionService, 'incident');
    expect(stored.flatMap((event) => getFunctionResponses(event))).toHaveLength(3);
  });

  it('completes with the default configuration, maxRequestBytes 8 MiB and a digest summarizer', async () => {
    const compaction = createEventsCompactionConfig({
      env: {},
      maxRequestBytes: 8 * MiB,
      summarizer: new DigestSummarizer(),
    });
    const { fake, run, sessionService } = await runInvestigation({ compaction });
    const events = await run;

    expect(getText(events.at(-1)!)).toBe('All five parts read: no errors found.');
    expect(fake.requests).toHaveLength(parts + 1);
    for (const request of fake.requests) {
      expect(request.status).toBe(200);
      expect(request.bytes).toBeLessThanOrEqual(8 * MiB + wireSlack);
    }
    const made = compactions(await fullHistory(sessionService, 'incident'));
    expect(made.length).toBeGreaterThan(0);
    await expectLosslessHistory(sessionService);
  });

  it('stays under the byte ceiling when only maxRequestBytes bounds the request', async () => {
    // Token trigger and window out of the way: the ceiling alone has to keep requests small.
    const { fake, run, sessionService } = await runInvestigation({
      compaction: {
        tokenThreshold: 100_000_000,
        eventRetentionSize: 10,
        maxRequestBytes: 8 * MiB,
        summarizer: new DigestSummarizer(),
      },
      contextWindowTokens: 100_000_000,
    });
    await run;
    expect(fake.requests.every((request) => request.status === 200)).toBe(true);
    expect(Math.max(...fake.requests.map((request) => request.bytes))).toBeLessThanOrEqual(
      8 * MiB + wireSlack,
    );
    const made = compactions(await fullHistory(sessionService, 'incident'));
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((event) => event.actions.compaction?.trigger === 'overflow')).toBe(true);
    await expectLosslessHistory(sessionService);
  });

  it('recovers from the 400 itself when no ceiling is configured (compact, retry once)', async () => {
    const { fake, run, sessionService } = await runInvestigation({
      compaction: {
        tokenThreshold: 100_000_000,
        eventRetentionSize: 10,
        summarizer: new DigestSummarizer(),
      },
      contextWindowTokens: 100_000_000,
    });
    const events = await run;
    expect(getText(events.at(-1)!)).toBe('All five parts read: no errors found.');
    const rejected = fake.requests.filter((request) => request.status === 400);
    expect(rejected.length).toBeGreaterThan(0);
    // Every rejection was followed by an accepted, smaller retry.
    fake.requests.forEach((request, index) => {
      if (request.status !== 400) return;
      const retry = fake.requests[index + 1]!;
      expect(retry.status).toBe(200);
      expect(retry.bytes).toBeLessThan(request.bytes);
    });
    await expectLosslessHistory(sessionService);
  });
});
