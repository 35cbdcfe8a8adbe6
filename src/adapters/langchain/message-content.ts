/**
 * LangChain messages as orrery content (what the log stores and the summarizer reads) and the
 * way back for what orrery holds that is no state message (the summary, another runtime's
 * events). The request sends the state's own message objects wherever it can
 * (`request-messages.ts`), so this content only has to serve compaction: texts, and each tool
 * call and its result as a `functionCall` / `functionResponse` pair with the call's id.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { Content, Part, UsageMetadata } from '../../events/types.js';

/** The message's text: string content, or its text blocks (other blocks named). */
function messageText(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) => {
      if (typeof block === 'string') return block;
      if (block === null || typeof block !== 'object') return '';
      const text: unknown = Reflect.get(block, 'text');
      if (typeof text === 'string') return text;
      const type: unknown = Reflect.get(block, 'type');
      return typeof type === 'string' ? `[${type}]` : '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** A tool call's id as the log pairs it (a call without an id is named by its position). */
export function toolCallId(id: string | undefined, index: number): string {
  return id ?? `call-${index}`;
}

/** A message as orrery content. */
export function messageToContent(message: BaseMessage): Content {
  const text = messageText(message);
  if (AIMessage.isInstance(message)) {
    const parts: Part[] = text === '' ? [] : [{ text }];
    (message.tool_calls ?? []).forEach((call, index) => {
      parts.push({
        functionCall: { id: toolCallId(call.id, index), name: call.name, args: { ...call.args } },
      });
    });
    return { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] };
  }
  if (ToolMessage.isInstance(message)) {
    const response = message.status === 'error' ? { error: text } : { result: text };
    return {
      role: 'user',
      parts: [
        {
          functionResponse: { id: message.tool_call_id, name: message.name ?? 'tool', response },
        },
      ],
    };
  }
  if (HumanMessage.isInstance(message)) return { role: 'user', parts: [{ text }] };
  // System and other messages in the conversation: instructions the summary should keep.
  return { role: 'user', parts: [{ text: `[${message.type}] ${text}` }] };
}

/** A content no state message holds (the summary, another runtime's event) as a message. */
export function contentToMessage(content: Content): BaseMessage {
  const text = content.parts
    .filter((part) => part.text !== undefined && !part.thought)
    .map((part) => part.text)
    .join('\n');
  return content.role === 'model' ? new AIMessage(text) : new HumanMessage(text);
}

/** An answer's usage as orrery stores it (the next estimate anchors on `promptTokenCount`). */
export function usageOf(message: BaseMessage): UsageMetadata | undefined {
  if (!AIMessage.isInstance(message) || !message.usage_metadata) return undefined;
  const usage = message.usage_metadata;
  return {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens,
    totalTokenCount: usage.total_tokens,
  };
}
