/** The AI SDK (`generateText` over `wrapLanguageModel`) for the shared adapter scenarios. */
import { generateText, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import type { FrameworkUnderTest } from '../../shared/scenarios/harness.js';
import { compactionMiddleware } from '../middleware.js';
import { overflowError, scriptedProvider } from './scripted-provider.js';

const tools = {
  lookup: tool({
    description: 'Looks an item up',
    inputSchema: z.object({ item: z.number() }),
    execute: async ({ item }) => `record ${item}: ${'details '.repeat(40)}`,
  }),
};

export const aiSdkFramework: FrameworkUnderTest = {
  name: 'ai-sdk',
  retriesOverflow: true,
  create: (options) => {
    const provider = scriptedProvider({ calls: 1 });
    const middleware = compactionMiddleware({
      ...options,
      fallbackSummarizer: null,
      logger: false,
    });
    const model = wrapLanguageModel({ model: provider.model, middleware });
    const histories = new Map<string, Parameters<typeof generateText>[0]['messages']>();
    return {
      key: (conversation) => ({ appName: 'ai-sdk', userId: 'anonymous', sessionId: conversation }),
      turn: async ({ conversation, text }) => {
        const messages = [
          ...(histories.get(conversation) ?? []),
          { role: 'user' as const, content: text },
        ];
        const result = await generateText({
          model,
          tools,
          messages,
          stopWhen: stepCountIs(5),
          providerOptions: { orrery: { conversationId: conversation } },
        });
        histories.set(conversation, [...messages, ...result.response.messages]);
      },
      refuseNextForSize: () => {
        provider.failOn.set(provider.prompts.length, overflowError);
      },
      requests: () => provider.prompts.length,
    };
  },
};
