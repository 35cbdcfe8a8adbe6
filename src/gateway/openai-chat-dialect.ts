/** OpenAI Chat Completions (`POST /openai/v1/chat/completions`) as a gateway dialect. */
import type { Dialect } from './dialect.js';
import { ChatStreamAssembler, completionAnswer } from './openai-chat-answer.js';
import { instructionText, splitConversation, viewMessages } from './openai-chat-messages.js';
import { openAiError } from './openai-errors.js';

export const OPENAI_CHAT_PATH = '/openai/v1/chat/completions';

export const openAiChatDialect: Dialect = {
  provider: 'openai',
  path: OPENAI_CHAT_PATH,
  target: ({ body, baseUrl }) => ({
    model: body.model,
    stream: body.stream === true,
    upstreamUrl: `${baseUrl}/chat/completions`,
  }),
  forwardedHeaders: ['authorization', 'openai-organization', 'openai-project', 'openai-beta'],
  returnedHeaders: ['openai-processing-ms', 'openai-version', 'x-ratelimit-limit-requests'],
  conversation(body) {
    const split = splitConversation(body.messages);
    return {
      messages: split.messages,
      contents: split.contents,
      instruction: instructionText(split.instructions),
      tools: Array.isArray(body.tools) ? body.tools : [],
      instructions: split.instructions,
    };
  },
  forwardBody({ body, conversation, view }) {
    return {
      ...body,
      messages: [...conversation.instructions, ...viewMessages({ view, conversation })],
    };
  },
  answer: completionAnswer,
  assembler: () => new ChatStreamAssembler(),
  recall: true,
  error: openAiError,
};
