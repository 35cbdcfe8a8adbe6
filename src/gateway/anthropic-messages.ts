/**
 * Anthropic Messages and orrery contents, both ways, as `openai-chat-messages.ts` does for
 * OpenAI: text, images, `tool_use` as `functionCall`, `tool_result` as `functionResponse`,
 * thinking as thought text. The system prompt is a body field of its own, so it never enters
 * the conversation and passes through untouched.
 */

import type { ActiveView } from '../compaction/view.js';
import type { Content, FunctionResponse, Part } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import type { DialectConversation } from './dialect.js';
import { GatewayRequestError } from './errors.js';
import { viewHistory } from './view-history.js';

type Message = Record<string, unknown>;

function blocksOf(content: unknown, path: string): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw new GatewayRequestError({
      field: `${path}.content`,
      value: content,
      message: 'expected a string or an array of content blocks',
    });
  }
  return content.map((block: unknown, index) => {
    if (!isRecord(block) || typeof block.type !== 'string') {
      throw new GatewayRequestError({
        field: `${path}.content[${index}]`,
        value: block,
        message: 'a content block needs a type',
      });
    }
    return block;
  });
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) =>
      isRecord(block) && typeof block.text === 'string' ? block.text : JSON.stringify(block),
    )
    .join('');
}

/** One message as a content (`callNames`: call ids to names, filled by assistant messages). */
export function anthropicMessageToContent(options: {
  message: Message;
  path: string;
  callNames: Map<string, string>;
}): Content {
  const { message, path, callNames } = options;
  if (message.role !== 'user' && message.role !== 'assistant') {
    throw new GatewayRequestError({
      field: `${path}.role`,
      value: message.role,
      message: 'expected user or assistant',
    });
  }
  const parts: Part[] = blocksOf(message.content, path).map((block, index): Part => {
    const where = `${path}.content[${index}]`;
    if (block.type === 'text' && typeof block.text === 'string') return { text: block.text };
    if (block.type === 'thinking' && typeof block.thinking === 'string') {
      return { text: block.thinking, thought: true };
    }
    if (block.type === 'image' && isRecord(block.source) && block.source.type === 'base64') {
      return {
        inlineData: {
          mimeType: String(block.source.media_type ?? 'image/png'),
          data: String(block.source.data ?? ''),
        },
      };
    }
    if (block.type === 'tool_use') {
      if (typeof block.id !== 'string' || typeof block.name !== 'string') {
        throw new GatewayRequestError({
          field: where,
          value: block,
          message: 'a tool_use block needs an id and a name',
        });
      }
      callNames.set(block.id, block.name);
      return {
        functionCall: {
          id: block.id,
          name: block.name,
          args: isRecord(block.input) ? block.input : {},
        },
      };
    }
    if (block.type === 'tool_result') {
      if (typeof block.tool_use_id !== 'string') {
        throw new GatewayRequestError({
          field: `${where}.tool_use_id`,
          value: block.tool_use_id,
          message: 'a tool_result block needs the id of its tool_use',
        });
      }
      const text = resultText(block.content);
      const functionResponse: FunctionResponse = {
        id: block.tool_use_id,
        name: callNames.get(block.tool_use_id) ?? 'unknown',
        response: block.is_error === true ? { error: text } : { result: text },
      };
      return { functionResponse };
    }
    // Other blocks (documents, redacted thinking, ...) are kept as their JSON, never dropped.
    return { text: JSON.stringify(block) };
  });
  if (parts.length === 0) parts.push({ text: '' });
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

function systemText(system: unknown): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  return resultText(system);
}

export function anthropicConversation(body: Record<string, unknown>): DialectConversation {
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new GatewayRequestError({
      field: 'messages',
      value: body.messages,
      message: 'expected a non-empty array of messages',
    });
  }
  const callNames = new Map<string, string>();
  const messages: Message[] = [];
  const contents: Content[] = [];
  body.messages.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    if (!isRecord(message)) {
      throw new GatewayRequestError({
        field: path,
        value: message,
        message: 'a message must be an object',
      });
    }
    messages.push(message);
    contents.push(anthropicMessageToContent({ message, path, callNames }));
  });
  return {
    messages,
    contents,
    instructions: [],
    instruction: systemText(body.system),
    tools: Array.isArray(body.tools) ? body.tools : [],
  };
}

/** A content the view changed (or made) as an Anthropic message. */
export function contentToAnthropicMessage(content: Content): Message {
  const blocks = content.parts.flatMap((part): Record<string, unknown>[] => {
    if (part.functionCall) {
      return [
        {
          type: 'tool_use',
          id: part.functionCall.id ?? '',
          name: part.functionCall.name,
          input: part.functionCall.args ?? {},
        },
      ];
    }
    if (part.functionResponse) {
      const value = part.functionResponse.response;
      const error = typeof value.error === 'string' ? value.error : undefined;
      const result =
        error ?? (typeof value.result === 'string' ? value.result : JSON.stringify(value));
      return [
        {
          type: 'tool_result',
          tool_use_id: part.functionResponse.id ?? '',
          content: result,
          ...(error === undefined ? {} : { is_error: true }),
        },
      ];
    }
    // Thinking is not rebuilt: a thinking block needs the provider's signature.
    if (part.text !== undefined && !part.thought && part.text !== '') {
      return [{ type: 'text', text: part.text }];
    }
    return [];
  });
  return {
    role: content.role === 'model' ? 'assistant' : 'user',
    content: blocks.length > 0 ? blocks : [{ type: 'text', text: '(empty)' }],
  };
}

/** The view as Anthropic messages: the summary first, then the client's own messages where unchanged. */
export function anthropicViewMessages(options: {
  view: ActiveView;
  conversation: DialectConversation;
}): Message[] {
  return viewHistory<Message>({
    ...options,
    summary: (text) => ({ role: 'user', content: text }),
    original: (message) => [message as Message],
    rebuild: (content) => [contentToAnthropicMessage(content)],
  });
}
