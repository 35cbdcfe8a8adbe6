/**
 * The messages a model request holds: orrery's view (the summary as the first human message,
 * then the tail) made of the state's own message objects, so nothing the app's messages carry
 * (ids, provider fields, tool call ids) is lost on the way. Calls and results are paired again
 * on the final list: a result whose call is not in it is left out, and a call without a result
 * gets an error result, so no request holds an orphan.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ELIDED_RESPONSE_KEY } from '../../compaction/elision.js';
import { type ActiveView, MISSING_RESULT_RESPONSE, summaryContent } from '../../compaction/view.js';
import { getText } from '../../events/event-helpers.js';
import type { Content } from '../../events/types.js';
import { AI_SDK_METADATA_KEY } from '../shared/conversation-log.js';
import { showsElision } from '../shared/view-change.js';
import { contentToMessage, toolCallId } from './message-content.js';

/** Where a logged event sits in the conversation (the shared conversation log's metadata). */
function loggedPosition(metadata: unknown): { index: number; chain: string } | undefined {
  if (metadata === null || typeof metadata !== 'object') return undefined;
  const index: unknown = Reflect.get(metadata, 'index');
  const chain: unknown = Reflect.get(metadata, 'chain');
  if (typeof index !== 'number' || typeof chain !== 'string') return undefined;
  return { index, chain };
}

/**
 * The view as messages: the summary, then for each tail event the state message it logged
 * (when that message is still the one at its index), else a message made from its content.
 */
export function viewMessages(options: {
  view: ActiveView;
  messages: readonly BaseMessage[];
  chains: readonly string[];
}): BaseMessage[] {
  const { view, messages, chains } = options;
  const result: BaseMessage[] = [];
  if (view.checkpoint) {
    result.push(new HumanMessage(getText(summaryContent(view.checkpoint))));
  }
  for (const event of view.events) {
    if (!event.content || event.partial) continue;
    const position = loggedPosition(event.customMetadata?.[AI_SDK_METADATA_KEY]);
    const original = position === undefined ? undefined : messages[position.index];
    const current = original && chains[position!.index] === position!.chain;
    // An elided output is shown as the view has it, never as the state's whole message.
    if (showsElision(event)) result.push(elidedToolMessage(event.content));
    else if (current) result.push(original);
    else result.push(contentToMessage(event.content));
  }
  return pairToolCalls(result);
}

/**
 * A tool result the view elided (docs/architecture.md#elision-the-cheap-tier): its call's id
 * and name, the placeholder as content.
 */
function elidedToolMessage(content: Content): BaseMessage {
  const response = content.parts.find((part) => part.functionResponse)?.functionResponse;
  if (!response) return contentToMessage(content);
  return new ToolMessage({
    tool_call_id: response.id ?? '',
    name: response.name,
    content: String(response.response[ELIDED_RESPONSE_KEY] ?? ''),
  });
}

/** Leaves out results without their call; answers calls without a result with an error. */
export function pairToolCalls(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set<string>();
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) answered.add(message.tool_call_id);
  }
  const called = new Set<string>();
  const result: BaseMessage[] = [];
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) {
      if (called.has(message.tool_call_id)) result.push(message);
      continue;
    }
    result.push(message);
    if (!AIMessage.isInstance(message)) continue;
    (message.tool_calls ?? []).forEach((call, index) => {
      const id = toolCallId(call.id, index);
      called.add(id);
      if (answered.has(id)) return;
      result.push(
        new ToolMessage({
          tool_call_id: id,
          name: call.name,
          status: 'error',
          content: MISSING_RESULT_RESPONSE.error,
        }),
      );
    });
  }
  return result;
}

/** Whether the request is the state's messages themselves (nothing compacted or repaired). */
export function sameMessages(left: readonly BaseMessage[], right: readonly BaseMessage[]): boolean {
  return left.length === right.length && left.every((message, index) => message === right[index]);
}
