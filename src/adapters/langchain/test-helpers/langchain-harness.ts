/** LangChain's `createAgent` with the orrery middleware, for the shared adapter scenarios. */
import type { BaseMessage } from '@langchain/core/messages';
import { HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { type FrameworkUnderTest, sizeRefusal } from '../../shared/scenarios/harness.js';
import { compactionMiddleware } from '../compaction-middleware.js';
import { ScriptedChatModel } from './scripted-chat-model.js';

/** The scripted model, refusing a request for size when told to. */
class RefusingChatModel extends ScriptedChatModel {
  refuseNext = false;
  received = 0;

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.received++;
    if (this.refuseNext) {
      this.refuseNext = false;
      throw sizeRefusal();
    }
    return super._generate(messages);
  }
}

const lookup = tool(async ({ query }) => `Result for ${query}: ${'facts '.repeat(40)}`, {
  name: 'lookup',
  description: 'Looks a question up.',
  schema: z.object({ query: z.string() }),
});

export const langChainFramework: FrameworkUnderTest = {
  name: 'langchain',
  retriesOverflow: true,
  create: (options) => {
    const model = new RefusingChatModel({ maxRetries: 0 });
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: 'Answer with the tool.',
      checkpointer: new MemorySaver(),
      middleware: [compactionMiddleware({ ...options, fallbackSummarizer: null, logger: false })],
    });
    return {
      key: (conversation) => ({
        appName: 'langchain',
        userId: 'anonymous',
        sessionId: conversation,
      }),
      turn: async ({ conversation, text }) => {
        await agent.invoke(
          { messages: [new HumanMessage(text)] },
          { configurable: { thread_id: conversation } },
        );
      },
      refuseNextForSize: () => {
        model.refuseNext = true;
      },
      requests: () => model.received,
    };
  },
};
