/**
 * orrery's compaction in a LangChain.js v1 agent: `createAgent` as it is, plus
 * `compactionMiddleware`. 20 turns on one thread, each calling a tool whose output is
 * bulky; at the end, what the model was sent beside what the graph state and the store keep.
 *
 *   npx tsx examples/langchain-middleware.ts
 *
 * No key is needed: a scripted chat model plays the model (it calls `read_log`, then answers).
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { compactionMiddleware } from '../src/adapters/langchain/index.js';
import { DigestSummarizer, InMemorySessionService } from '../src/index.js';

/** Requests the model received, as JSON characters of their messages. */
const sentSizes: number[] = [];

class OfflineChatModel extends BaseChatModel {
  private calls = 0;

  _llmType(): string {
    return 'offline';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const size = JSON.stringify(messages.map((message) => message.content)).length;
    sentSizes.push(size);
    const usage_metadata = {
      input_tokens: Math.ceil(size / 4),
      output_tokens: 30,
      total_tokens: Math.ceil(size / 4) + 30,
    };
    const last = messages.at(-1);
    if (last && HumanMessage.isInstance(last)) {
      this.calls++;
      const message = new AIMessage({
        content: '',
        tool_calls: [
          {
            id: `call_${this.calls}`,
            name: 'read_log',
            args: { page: this.calls },
            type: 'tool_call',
          },
        ],
        usage_metadata,
      });
      return { generations: [{ text: '', message }] };
    }
    const text = `Page ${this.calls} read: no errors after the restart.`;
    return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata }) }] };
  }
}

const sessionService = new InMemorySessionService();
const readLog = tool(
  async ({ page }) =>
    Array.from({ length: 12 }, (_, line) => `page ${page} line ${line}: GET /health 200 3ms`).join(
      '\n',
    ),
  {
    name: 'read_log',
    description: 'Reads one page of the service log.',
    schema: z.object({ page: z.number() }),
  },
);
const agent = createAgent({
  model: new OfflineChatModel({}),
  tools: [readLog],
  systemPrompt: 'Read the log page asked for.',
  checkpointer: new MemorySaver(),
  middleware: [
    compactionMiddleware({
      sessionService,
      compaction: { tokenThreshold: 2_000, eventRetentionSize: 6 },
      summarizer: new DigestSummarizer({ maxChars: 1_500 }),
      logger: false,
    }),
  ],
});

const config = { configurable: { thread_id: 'incident-42' } };
let state = { messages: [] as BaseMessage[] };
for (let turn = 1; turn <= 20; turn++) {
  state = await agent.invoke({ messages: [new HumanMessage(`Read log page ${turn}.`)] }, config);
}
const { events } = await sessionService.listEvents({
  appName: 'langchain',
  userId: 'anonymous',
  sessionId: 'incident-42',
});
const stateCharacters = JSON.stringify(state.messages.map((message) => message.content)).length;
console.log(
  `requests: ${sentSizes.length}; largest ${Math.max(...sentSizes)} characters, last ${sentSizes.at(-1)}`,
);
console.log(
  `the graph state: ${state.messages.length} messages, ${stateCharacters} characters (none removed)`,
);
console.log(
  `the store: ${events.filter((event) => event.content).length} messages and ${events.filter((event) => event.actions.compaction).length} compactions`,
);
