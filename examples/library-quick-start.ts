/**
 * orrery as a library, offline: an agent with a tool that returns bulky logs, a Runner that
 * compacts the session when the next request would pass a (deliberately small) token threshold,
 * and at the end the model's view beside the full, lossless history.
 *
 *   npx tsx examples/library-quick-start.ts
 *
 * No key is needed: `OfflineModel` below stands in for a real model. With a key, use
 * `await resolveModel({ modelId: 'google:gemini-2.5-flash' })` instead (and drop the
 * `DigestSummarizer` to summarize with a model, see SPEC §5).
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { estimateContentTokens, estimateEventTokens } from '../src/entries/compaction.js';
import {
  createEventsCompactionConfig,
  DigestSummarizer,
  type Event,
  FunctionTool,
  getText,
  InMemorySessionService,
  LlmAgent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type Plugin,
  Runner,
} from '../src/index.js';

/**
 * A deterministic model: asked a question, it calls `read_logs` for the service named last in
 * the question; given the tool's result, it answers with what it found. It reports usage the way
 * a provider does, so the Runner's token trigger anchors on it.
 */
class OfflineModel implements Model {
  readonly modelId = 'offline:quick-start';
  private calls = 0;

  async generate(request: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    const usageMetadata = {
      promptTokenCount: request.contents.reduce(
        (total, content) => total + estimateContentTokens(content),
        0,
      ),
    };
    const lastPart = request.contents.at(-1)?.parts.at(-1);
    const result = lastPart?.functionResponse;
    const question = lastPart?.text?.trim() ?? '';
    if (result || !question.endsWith('?')) {
      // A tool result to read, or (after a compaction) a summary that already holds it.
      const text = String((result?.response as { result?: unknown } | undefined)?.result ?? '');
      const errors = text.split('\n').filter((line) => line.includes(' ERROR ')).length;
      const answer = result
        ? `I read ${text.split('\n').length} log lines: ${errors} errors.`
        : 'The logs are summarized above; nothing new to read.';
      return {
        content: { role: 'model', parts: [{ text: answer }] },
        usageMetadata,
        finishReason: 'stop',
      };
    }
    const service = question.match(/(\w+)\W*$/)?.[1] ?? 'unknown';
    return {
      content: {
        role: 'model',
        parts: [
          {
            functionCall: { id: `call-${this.calls}`, name: 'read_logs', args: { service } },
          },
        ],
      },
      usageMetadata,
      finishReason: 'tool-calls',
    };
  }
}

/** A tool from a zod schema. Its output is deliberately bulky: this is what fills contexts. */
const readLogs = new FunctionTool({
  name: 'read_logs',
  description: "Read the latest log lines of a service's production pods.",
  parameters: z.object({
    service: z.string().describe('service name, e.g. checkout'),
    lines: z.number().int().min(1).max(1000).default(40),
  }),
  execute: async ({ service, lines }) =>
    Array.from({ length: lines }, (_, index) => {
      const level = (index + service.length) % 13 === 0 ? 'ERROR' : 'INFO';
      return `2025-06-01T10:${String(index % 60).padStart(2, '0')}:00Z ${service}-7f9c ${level} request ${index} handled in ${(index * 37) % 900}ms`;
    }).join('\n'),
});

function sizeOf(events: Event[]): { events: number; tokens: number } {
  return {
    events: events.length,
    tokens: events.reduce((total, event) => total + estimateEventTokens(event), 0),
  };
}

export interface QuickStartResult {
  compactions: number;
  full: { events: number; tokens: number };
  view: { events: number; tokens: number };
}

export async function main(
  options: { log?: (line: string) => void } = {},
): Promise<QuickStartResult> {
  const log = options.log ?? console.log;
  const sessionService = new InMemorySessionService();
  let compactions = 0;
  const printCompactions: Plugin = {
    name: 'print-compactions',
    afterCompaction: ({ report }) => {
      if (report.outcome !== 'compacted') return;
      compactions++;
      log(
        `  compaction ${compactions} (${report.trigger}): events seq ${report.startSeq}-${report.endSeq} summarized, next request ~${report.tokensBefore} -> ~${report.tokensAfter} tokens`,
      );
    },
  };
  const runner = new Runner({
    appName: 'quick-start',
    agent: new LlmAgent({
      name: 'oncall',
      model: new OfflineModel(),
      instruction: 'You investigate production incidents. Read logs before answering.',
      tools: [readLogs],
    }),
    sessionService,
    // Small on purpose, so a few turns show compaction; the default is 250,000 tokens.
    compaction: createEventsCompactionConfig({
      tokenThreshold: 3_000,
      eventRetentionSize: 4,
      // The retained tail's token budget (default: a quarter of the threshold): room for the
      // latest tool result, so the model reads it verbatim rather than from the summary.
      retentionTokenBudget: 1_500,
      summarizer: new DigestSummarizer(),
    }),
    plugins: [printCompactions],
    logger: false,
  });

  const key = { appName: 'quick-start', userId: 'ada', sessionId: 'incident-42' };
  await sessionService.createSession(key);
  for (const service of [
    'checkout',
    'payments',
    'inventory',
    'search',
    'shipping',
    'auth',
    'email',
    'billing',
  ]) {
    const question = `Any errors in the logs of ${service}`;
    log(`> ${question}?`);
    for await (const event of runner.run({ ...key, newMessage: `${question}?` })) {
      const text = getText(event);
      if (event.author !== 'user' && text) log(`  ${event.author}: ${text}`);
    }
  }

  // The model sees the view (latest summary + the retained tail); storage keeps everything.
  const viewSession = await sessionService.getSession(key);
  const fullSession = await sessionService.getSession({ ...key, events: 'full' });
  const view = sizeOf(viewSession?.events ?? []);
  const full = sizeOf(fullSession?.events ?? []);
  const checkpoint = (viewSession?.events ?? []).find((event) => event.actions.compaction);
  log('');
  log(`compactions: ${compactions}`);
  log(`view (what the next request holds): ${view.events} events, ~${view.tokens} tokens`);
  log(`full history (kept in storage):     ${full.events} events, ~${full.tokens} tokens`);
  if (checkpoint?.actions.compaction) {
    const summary = getText(checkpoint.actions.compaction.compactedContent);
    log(`latest summary (${summary.length} chars):\n${summary.slice(0, 400)}`);
  }
  return { compactions, full, view };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
