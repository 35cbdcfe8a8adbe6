/**
 * orrery's compaction in an AI SDK app: `wrapLanguageModel` with `compactionMiddleware`, a
 * `generateText` tool loop whose tool returns bulky output, and at the end what the provider was
 * sent beside what the session keeps.
 *
 *   npx tsx examples/ai-sdk-middleware.ts
 *
 * No key is needed: a `MockLanguageModelV3` plays the model (it looks up 20 log pages, then
 * answers). With `OPENAI_API_KEY` set, `gpt-4o-mini` runs the same loop.
 */
import { openai } from '@ai-sdk/openai';
import type { LanguageModelV3, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { compactionMiddleware } from '../src/adapters/ai-sdk/index.js';
import { DigestSummarizer, InMemorySessionService } from '../src/index.js';

/** Requests the provider received, as JSON characters (what it would bill as input). */
const sentSizes: number[] = [];

function offlineModel(): LanguageModelV3 {
  let pages = 0;
  return new MockLanguageModelV3({
    provider: 'offline',
    modelId: 'log-reader',
    doGenerate: async (params): Promise<LanguageModelV3GenerateResult> => {
      const size = JSON.stringify(params.prompt).length;
      sentSizes.push(size);
      const usage = {
        inputTokens: {
          total: Math.ceil(size / 4),
          noCache: undefined,
          cacheRead: undefined,
          cacheWrite: undefined,
        },
        outputTokens: { total: 30, text: 30, reasoning: undefined },
      };
      if (pages < 20) {
        pages++;
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `page-${pages}`,
              toolName: 'readLogs',
              input: JSON.stringify({ page: pages }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          { type: 'text', text: 'The 502s start at page 17: the upstream pool is exhausted.' },
        ],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

const sessionService = new InMemorySessionService();
const model = wrapLanguageModel({
  model: process.env.OPENAI_API_KEY ? openai('gpt-4o-mini') : offlineModel(),
  middleware: compactionMiddleware({
    sessionService,
    // Deliberately small so this short run compacts a few times.
    compaction: { tokenThreshold: 3_000, eventRetentionSize: 6 },
    summarizer: new DigestSummarizer(),
    // A pino logger to see one line per compaction; `false` keeps this output short.
    logger: false,
  }),
});

const result = await generateText({
  model,
  system: 'You read service logs page by page (pages 1-20) and find the cause of the 502s.',
  prompt: 'Why does checkout return 502?',
  tools: {
    readLogs: tool({
      description: 'One page of the checkout service log',
      inputSchema: z.object({ page: z.number() }),
      execute: async ({ page }) => ({
        page,
        lines: Array.from({ length: 25 }, (_, line) => `12:${page}:${line} GET /checkout 200 41ms`),
      }),
    }),
  },
  stopWhen: stepCountIs(25),
  providerOptions: { orrery: { conversationId: 'checkout-502' } },
});

const { events } = await sessionService.listEvents({
  appName: 'ai-sdk',
  userId: 'anonymous',
  sessionId: 'checkout-502',
});
const compactions = events.filter((event) => event.actions.compaction);
console.log(`answer      ${result.text}`);
console.log(`steps       ${result.steps.length}`);
console.log(
  `stored      ${events.length - compactions.length} messages, ${compactions.length} compactions (nothing dropped)`,
);
if (sentSizes.length > 0) {
  console.log(`largest request sent  ${Math.max(...sentSizes).toLocaleString('en-US')} characters`);
  console.log(`last request sent     ${sentSizes.at(-1)!.toLocaleString('en-US')} characters`);
  const full = JSON.stringify(result.response.messages).length;
  console.log(
    `full history          ${full.toLocaleString('en-US')} characters (kept in the session)`,
  );
}
