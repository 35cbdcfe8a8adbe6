/**
 * OpenAI Chat Completions messages and orrery contents, both ways. A request's messages become
 * contents by the OpenAI chat importer's mapping (`contentParts`, `parseArguments`), so a gateway
 * session reads like an imported transcript; `system` and `developer` messages stay out of the
 * conversation (they are the request's instruction, sent as the client gave them). The forwarded
 * history is orrery's view made of the client's own message objects where the view shows them
 * unchanged, and of messages rebuilt from the view's contents where it does not (the summary, an
 * elided or cut tool output, a repaired call).
 */

import type { ActiveView } from '../compaction/view.js';
import type { Content, FunctionResponse, Part } from '../events/types.js';
import { isRecord, parseArguments } from '../importers/json-input.js';
import { contentParts } from '../importers/openai-chat.js';
import { GatewayRequestError } from './errors.js';
import { viewHistory } from './view-history.js';

export type ChatMessage = Record<string, unknown>;

/** A request's messages split: the instruction messages and the conversation. */
export interface ChatConversation {
  /** `system` and `developer` messages, in their order (passed through). */
  instructions: ChatMessage[];
  /** The other messages and their contents, index for index. */
  messages: ChatMessage[];
  contents: Content[];
}

function isInstruction(message: ChatMessage): boolean {
  return message.role === 'system' || message.role === 'developer';
}

/** The request's `messages`, checked (a bad one names its path) and mapped. */
export function splitConversation(input: unknown): ChatConversation {
  if (!Array.isArray(input) || input.length === 0) {
    throw new GatewayRequestError({
      field: 'messages',
      value: input,
      message: 'expected a non-empty array of chat messages',
    });
  }
  const instructions: ChatMessage[] = [];
  const messages: ChatMessage[] = [];
  const contents: Content[] = [];
  const callNames = new Map<string, string>();
  input.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message)) {
      throw new GatewayRequestError({
        field: path,
        value: message,
        message: 'a message must be an object',
      });
    }
    if (isInstruction(message)) {
      instructions.push(message);
      return;
    }
    const content = messageToContent({ message, path, callNames });
    messages.push(message);
    contents.push(content);
  });
  return { instructions, messages, contents };
}

/** Text of the instruction messages (the request overhead's estimate reads it). */
export function instructionText(instructions: readonly ChatMessage[]): string {
  return instructions
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n\n');
}

/**
 * One message as a content. `callNames` maps call ids to names (a tool message has no name: it
 * takes its call's, as the importer does).
 */
export function messageToContent(options: {
  message: ChatMessage;
  path: string;
  callNames: Map<string, string>;
}): Content {
  const { message, path, callNames } = options;
  const role = message.role;
  try {
    if (role === 'user') {
      return { role: 'user', parts: contentParts(message.content, `${path}.content`) };
    }
    if (role === 'assistant') {
      const parts: Part[] = [];
      if (message.content !== null && message.content !== undefined) {
        parts.push(...contentParts(message.content, `${path}.content`));
      }
      if (typeof message.refusal === 'string' && message.refusal !== '') {
        parts.push({ text: message.refusal });
      }
      parts.push(...toolCallParts(message, path, callNames));
      if (parts.length === 0) parts.push({ text: '' });
      return { role: 'model', parts };
    }
    if (role === 'tool' || role === 'function') {
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
      if (role === 'tool' && id === undefined) {
        throw new GatewayRequestError({
          field: `${path}.tool_call_id`,
          value: message.tool_call_id,
          message: 'a tool message needs the id of its call',
        });
      }
      const name =
        (typeof message.name === 'string' ? message.name : undefined) ??
        (id === undefined ? undefined : callNames.get(id)) ??
        'unknown';
      const text =
        typeof message.content === 'string'
          ? message.content
          : contentParts(message.content, `${path}.content`)
              .map((part) => part.text ?? '')
              .join('');
      // A legacy `function` message has no call id: its call is named by the function.
      const functionResponse: FunctionResponse = {
        id: id ?? `function:${name}`,
        name,
        response: { result: text },
      };
      return { role: 'user', parts: [{ functionResponse }] };
    }
  } catch (error) {
    if (GatewayRequestError.isInstance(error)) throw error;
    // The importer's errors name the path; the client gets them as a request error.
    const field = isRecord(error) && typeof error.path === 'string' ? error.path : path;
    throw new GatewayRequestError({
      field,
      value: message,
      message: error instanceof Error ? error.message : String(error),
      cause: error,
    });
  }
  throw new GatewayRequestError({
    field: `${path}.role`,
    value: role,
    message: 'expected system, developer, user, assistant or tool',
  });
}

function toolCallParts(message: ChatMessage, path: string, callNames: Map<string, string>): Part[] {
  if (message.tool_calls === undefined || message.tool_calls === null) return [];
  if (!Array.isArray(message.tool_calls)) {
    throw new GatewayRequestError({
      field: `${path}.tool_calls`,
      value: message.tool_calls,
      message: 'must be an array',
    });
  }
  return message.tool_calls.map((call: unknown, index): Part => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') {
      throw new GatewayRequestError({
        field: `${path}.tool_calls[${index}]`,
        value: call,
        message: 'a tool call needs an id and a function name',
      });
    }
    callNames.set(call.id, fn.name);
    return { functionCall: { id: call.id, name: fn.name, args: parseArguments(fn.arguments) } };
  });
}

/** Contents as chat messages (a content of several results becomes several tool messages). */
export function contentToMessages(content: Content): ChatMessage[] {
  const responses = content.parts.filter((part) => part.functionResponse);
  if (responses.length > 0) {
    return responses.map((part) => {
      const response = part.functionResponse!;
      const value = response.response;
      const result = Object.keys(value).length === 1 && 'result' in value ? value.result : value;
      return {
        role: 'tool',
        tool_call_id: response.id ?? '',
        content: typeof result === 'string' ? result : JSON.stringify(result),
      };
    });
  }
  const text = content.parts
    .filter((part) => part.text !== undefined && !part.thought)
    .map((part) => part.text)
    .join('');
  if (content.role !== 'model') return [{ role: 'user', content: text }];
  const calls = content.parts
    .filter((part) => part.functionCall)
    .map((part) => ({
      id: part.functionCall!.id ?? '',
      type: 'function',
      function: {
        name: part.functionCall!.name,
        arguments: JSON.stringify(part.functionCall!.args ?? {}),
      },
    }));
  return [
    {
      role: 'assistant',
      content: calls.length > 0 && text === '' ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
  ];
}

/** Where a logged event sits in the conversation (the shared conversation log's metadata). */
function _loggedIndex(metadata: unknown): number | undefined {
  if (!isRecord(metadata)) return undefined;
  return typeof metadata.index === 'number' ? metadata.index : undefined;
}

/**
 * The view as the forwarded history: the summary as the first user message, then each tail
 * event as the client's own message when the event shows it unchanged (same identity), else
 * as a message rebuilt from the view's content.
 */
export function viewMessages(options: {
  view: ActiveView;
  conversation: ChatConversation;
}): ChatMessage[] {
  return viewHistory<ChatMessage>({
    ...options,
    summary: (text) => ({ role: 'user', content: text }),
    original: (message) => [message as ChatMessage],
    rebuild: contentToMessages,
  });
}
