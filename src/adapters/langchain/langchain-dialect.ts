/**
 * LangChain's mapping for the adapter core (docs/architecture.md#the-adapter-core): the state's
 * messages as orrery content, the view as the state's own message objects (`viewMessages`), the
 * model's answer with its usage, and LangChain's `ContextOverflowError` as a refusal for size.
 */
import { ContextOverflowError } from '@langchain/core/errors';
import type { BaseMessage } from '@langchain/core/messages';
import type { ConversationDialect } from '../shared/conversation-dialect.js';
import { messageToContent, usageOf } from './message-content.js';
import { sameMessages, viewMessages } from './request-messages.js';

export const langChainDialect: ConversationDialect<BaseMessage, BaseMessage[], BaseMessage> = {
  toContent: messageToContent,
  toView: ({ view, messages, chains }) => {
    const viewed = viewMessages({ view, messages, chains });
    return sameMessages(viewed, messages) ? undefined : viewed;
  },
  toAnswer: (answer) => {
    const usageMetadata = usageOf(answer);
    return { content: messageToContent(answer), ...(usageMetadata ? { usageMetadata } : {}) };
  },
  isOverflow: (error) => ContextOverflowError.isInstance(error),
};
