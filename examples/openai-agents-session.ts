/**
 * orrery's compaction in an OpenAI Agents JS app: the Runner as it is, with an
 * `OrreryAgentsSession` as its session. 25 turns, each calling a tool whose output is bulky;
 * at the end, what the model was sent beside what the session keeps.
 *
 *   npx tsx examples/openai-agents-session.ts
 *
 * No key is needed: a scripted `Model` plays the model (it calls `read_log`, then answers).
 */
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import { OrreryAgentsSession } from '../src/adapters/openai-agents/index.js';
import { DigestSummarizer, InMemorySessionService } from '../src/index.js';

/** Requests the model received, as JSON characters (what it would bill as input). */
const sentSizes: number[] = [];

class OfflineModel implements Model {
  private calls = 0;

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = request.input as AgentInputItem[];
    sentSizes.push(JSON.stringify(input).length);
    const inputTokens = Math.ceil(JSON.stringify(input).length / 4);
    const usage = new Usage({
      requests: 1,
      inputTokens,
      outputTokens: 30,
      totalTokens: inputTokens + 30,
    });
    const last = input.at(-1);
    if (last?.type === 'function_call_result') {
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [
              {
                type: 'output_text',
                text: `Page ${this.calls} read: no errors after the restart.`,
              },
            ],
          },
        ],
      };
    }
    this.calls++;
    return {
      usage,
      output: [
        {
          type: 'function_call',
          callId: `call_${this.calls}`,
          name: 'read_log',
          arguments: JSON.stringify({ page: this.calls }),
          status: 'completed',
        },
      ],
    };
  }

  // biome-ignore lint/correctness/useYield: the example does not stream.
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed in this example');
  }
}

const sessionService = new InMemorySessionService();
const session = new OrreryAgentsSession({
  sessionService,
  sessionId: 'incident-42',
  compaction: { tokenThreshold: 2_000, eventRetentionSize: 6 },
  summarizer: new DigestSummarizer({ maxChars: 1_500 }),
  logger: false,
});
const readLog = tool({
  name: 'read_log',
  description: 'Reads one page of the service log.',
  parameters: z.object({ page: z.number() }),
  execute: async ({ page }) =>
    Array.from({ length: 12 }, (_, line) => `page ${page} line ${line}: GET /health 200 3ms`).join(
      '\n',
    ),
});
const agent = new Agent({
  name: 'assistant',
  instructions: 'Read the log page asked for.',
  model: new OfflineModel(),
  tools: [readLog],
});
const runner = new Runner({ tracingDisabled: true });

for (let turn = 1; turn <= 25; turn++) {
  await runner.run(agent, `Read log page ${turn}.`, { session });
}

const view = await session.getItems();
let stored = 0;
let compactions = 0;
let historyCharacters = 0;
let afterSeq: number | undefined;
for (;;) {
  const page = await sessionService.listEvents({ ...session.key, afterSeq });
  stored += page.events.length;
  for (const event of page.events) {
    if (event.actions.compaction) compactions++;
    else historyCharacters += JSON.stringify(event.customMetadata?.['orrery:openaiAgents']).length;
  }
  if (page.nextCursor === undefined || page.events.length === 0) break;
  afterSeq = page.nextCursor;
}
console.log(
  `requests: ${sentSizes.length}; largest ${Math.max(...sentSizes)} characters, last ${sentSizes.at(-1)}`,
);
console.log(`the whole history: ${historyCharacters} characters; ${compactions} compactions`);
console.log(
  `the view: ${view.length} items, the summary first; the store: ${stored} events (every item kept)`,
);
