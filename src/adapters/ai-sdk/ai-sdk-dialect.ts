/**
 * The AI SDK's mapping for the adapter core (docs/architecture.md#the-adapter-core): its prompt
 * messages as orrery content, the view as the contents to send after the app's system messages,
 * and a provider's answer (content parts and usage) as the message to store.
 */
import type { LanguageModelV3Content, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { Content } from '../../events/types.js';
import { toUsageMetadata } from '../../models/from-ai-sdk-result.js';
import type { ConversationDialect } from '../shared/conversation-dialect.js';
import { viewIsLoggedMessages } from '../shared/view-change.js';
import {
  type ConversationMessage,
  messageToContent,
  responseToContent,
} from './message-content.js';

/** What a provider call returned, as the middleware and the stream recorder see it. */
export interface AiSdkAnswer {
  content: readonly LanguageModelV3Content[];
  usage?: LanguageModelV3Usage;
}

export const aiSdkDialect: ConversationDialect<ConversationMessage, Content[], AiSdkAnswer> = {
  toContent: messageToContent,
  // Nothing compacted, repaired or cut: the app's own messages, as the AI SDK built them.
  toView: ({ view, contents }) =>
    viewIsLoggedMessages(view, contents.length) ? undefined : view.contents,
  toAnswer: (answer) => {
    const usageMetadata = toUsageMetadata(answer.usage);
    return {
      content: responseToContent(answer.content),
      ...(usageMetadata ? { usageMetadata } : {}),
    };
  },
};
