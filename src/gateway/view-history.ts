/**
 * The view as the history a dialect forwards, the same rule for every provider: the summary
 * first as a user message, then each tail event as the client's own message when the stored
 * event still shows it unchanged (same content identity), else rebuilt from the view's content.
 */
import { AI_SDK_METADATA_KEY } from '../adapters/shared/conversation-log.js';
import { contentIdentity } from '../adapters/shared/message-identity.js';
import { type ActiveView, summaryContent } from '../compaction/view.js';
import { getText } from '../events/event-helpers.js';
import type { Content } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';

export interface ViewHistoryOptions<Message> {
  view: ActiveView;
  /** The request's messages and their contents, index for index. */
  conversation: { messages: readonly unknown[]; contents: readonly Content[] };
  /** The summary's text as the dialect's user message. */
  summary: (text: string) => Message;
  /** A client message forwarded as it came; `undefined` when it cannot be reused as is. */
  original: (message: unknown) => Message[] | undefined;
  /** A stored content as the dialect's messages. */
  rebuild: (content: Content) => Message[];
}

/** The position in the request a stored event came from (the conversation log's metadata). */
function loggedIndex(metadata: unknown): number | undefined {
  return isRecord(metadata) && typeof metadata.index === 'number' ? metadata.index : undefined;
}

export function viewHistory<Message>(options: ViewHistoryOptions<Message>): Message[] {
  const { view, conversation } = options;
  const result: Message[] = [];
  if (view.checkpoint) result.push(options.summary(getText(summaryContent(view.checkpoint))));
  for (const event of view.events) {
    if (!event.content || event.partial) continue;
    const index = loggedIndex(event.customMetadata?.[AI_SDK_METADATA_KEY]);
    const original = index === undefined ? undefined : conversation.messages[index];
    const originalContent = index === undefined ? undefined : conversation.contents[index];
    const unchanged =
      original !== undefined &&
      originalContent !== undefined &&
      contentIdentity(originalContent) === contentIdentity(event.content);
    const reused = unchanged ? options.original(original) : undefined;
    result.push(...(reused ?? options.rebuild(event.content)));
  }
  return result;
}
