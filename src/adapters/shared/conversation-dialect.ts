/**
 * What a framework that hands orrery its model call supplies to the adapter core
 * (docs/architecture.md#the-adapter-core), as a kysely `Dialect` supplies a driver: how one of
 * its messages reads as orrery content, how orrery's view becomes what it sends, how its
 * model's answer is stored, and which of its errors mean "the request is too large".
 */
import type { ActiveView } from '../../compaction/view.js';
import type { Content, UsageMetadata } from '../../events/types.js';

export interface ConversationDialect<Message, View, Answer> {
  /** One of the framework's messages (no system message) as orrery content. */
  toContent(message: Message): Content;
  /**
   * What to send for `view`, or `undefined` when the view is the framework's own messages
   * (nothing compacted, elided, repaired or cut): then the framework's request goes unchanged.
   */
  toView(options: {
    view: ActiveView;
    messages: readonly Message[];
    contents: readonly Content[];
    chains: readonly string[];
  }): View | undefined;
  /** The model's answer as the content to store (no parts: nothing stored) and its usage. */
  toAnswer(answer: Answer): { content: Content; usageMetadata?: UsageMetadata };
  /** Whether the framework's error is a refusal for size (besides the providers' wordings). */
  isOverflow?(error: unknown): boolean;
}
