/**
 * OpenAI Responses API input items and orrery contents. The request is stateless: `input` holds
 * the whole history (`store: false`, no `previous_response_id`, which is refused because the
 * history would then be on OpenAI's side, where the gateway cannot compact it). System and
 * developer messages are the request's instruction, forwarded first as sent. The other items
 * become contents; a run of model-side items (assistant messages, reasoning, function calls) is
 * one model content, because that is what one response's `output` is and how it is stored, so a
 * resent output matches its stored answer. A run of items the view shows unchanged is forwarded
 * as the client's own items; a rebuilt content becomes plain items.
 */

import type { ActiveView } from '../compaction/view.js';
import { getText } from '../events/event-helpers.js';
import type { Content, Part } from '../events/types.js';
import { isRecord, parseArguments } from '../importers/json-input.js';
import type { DialectConversation } from './dialect.js';
import { GatewayRequestError } from './errors.js';
import { viewHistory } from './view-history.js';

type Item = Record<string, unknown>;

function isInstruction(item: Item): boolean {
  return item.role === 'system' || item.role === 'developer';
}

function isModelSide(item: Item): boolean {
  if (item.type === 'function_call' || item.type === 'reasoning') return true;
  return item.role === 'assistant';
}

function messageText(content: unknown, path: string): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) {
    throw new GatewayRequestError({
      field: `${path}.content`,
      value: content,
      message: 'expected a string or an array of content parts',
    });
  }
  return content.map((part: unknown): Part => {
    if (isRecord(part) && typeof part.text === 'string') return { text: part.text };
    if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string') {
      return { text: part.refusal };
    }
    if (isRecord(part) && part.type === 'input_image' && typeof part.image_url === 'string') {
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url);
      if (data) return { inlineData: { mimeType: data[1]!, data: data[2]! } };
    }
    return { text: JSON.stringify(part) };
  });
}

/** One item's parts (`path` names it in errors). */
function itemParts(item: Item, path: string): Part[] {
  if (item.type === 'function_call') {
    if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
      throw new GatewayRequestError({
        field: path,
        value: item,
        message: 'a function_call item needs a call_id and a name',
      });
    }
    return [
      { functionCall: { id: item.call_id, name: item.name, args: parseArguments(item.arguments) } },
    ];
  }
  if (item.type === 'function_call_output') {
    if (typeof item.call_id !== 'string') {
      throw new GatewayRequestError({
        field: `${path}.call_id`,
        value: item.call_id,
        message: 'a function_call_output item needs the call_id of its call',
      });
    }
    const output = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
    return [
      { functionResponse: { id: item.call_id, name: 'unknown', response: { result: output } } },
    ];
  }
  if (item.type === 'reasoning') {
    const summary = Array.isArray(item.summary)
      ? item.summary
          .map((part: unknown) =>
            isRecord(part) && typeof part.text === 'string' ? part.text : '',
          )
          .join('\n')
      : '';
    return [{ text: summary, thought: true }];
  }
  if (item.role === 'user' || item.role === 'assistant') return messageText(item.content, path);
  // Other items (web search calls, ...) are kept as their JSON.
  return [{ text: JSON.stringify(item) }];
}

/** A run of items as one content; function outputs take their call's name. */
function groupContent(items: Item[], path: string, callNames: Map<string, string>): Content {
  const model = isModelSide(items[0]!);
  const parts = items.flatMap((item, index) => itemParts(item, `${path}[${index}]`));
  for (const part of parts) {
    if (part.functionCall) callNames.set(part.functionCall.id ?? '', part.functionCall.name);
    if (part.functionResponse) {
      part.functionResponse.name = callNames.get(part.functionResponse.id ?? '') ?? 'unknown';
    }
  }
  return { role: model ? 'model' : 'user', parts: parts.length > 0 ? parts : [{ text: '' }] };
}

export function responsesConversation(body: Record<string, unknown>): DialectConversation {
  for (const field of ['previous_response_id', 'conversation'] as const) {
    if (body[field] !== undefined && body[field] !== null) {
      throw new GatewayRequestError({
        field,
        value: body[field],
        message:
          'the orrery gateway compacts the history it is sent: send the whole history in `input` (with store: false) instead of a stored response or conversation',
      });
    }
  }
  const input: unknown[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as []);
  if (!Array.isArray(input) || input.length === 0) {
    throw new GatewayRequestError({
      field: 'input',
      value: body.input,
      message: 'expected a string or a non-empty array of input items',
    });
  }
  const instructions: Item[] = [];
  const groups: Item[][] = [];
  input.forEach((item: unknown, index) => {
    if (!isRecord(item)) {
      throw new GatewayRequestError({
        field: `input[${index}]`,
        value: item,
        message: 'an input item must be an object',
      });
    }
    if (isInstruction(item)) {
      instructions.push(item);
      return;
    }
    const last = groups.at(-1);
    if (last && isModelSide(item) && isModelSide(last[0]!)) last.push(item);
    else groups.push([item]);
  });
  const callNames = new Map<string, string>();
  const contents = groups.map((items, index) =>
    groupContent(items, `input(group ${index})`, callNames),
  );
  const text = [
    typeof body.instructions === 'string' ? body.instructions : '',
    ...instructions.map((item) =>
      getText({ role: 'user', parts: messageText(item.content, 'input') }),
    ),
  ];
  return {
    messages: groups.map((items) => ({ items })),
    contents,
    instructions,
    instruction: text.filter((line) => line !== '').join('\n\n'),
    tools: Array.isArray(body.tools) ? body.tools : [],
  };
}

/** The stored form of a response's `output` items (one model content). */
export function outputContent(output: unknown): Content | undefined {
  if (!Array.isArray(output)) return undefined;
  const items = output.filter(isRecord);
  if (items.length === 0) return undefined;
  try {
    return { ...groupContent(items, 'output', new Map()), role: 'model' };
  } catch {
    return undefined;
  }
}

/** A content the view changed (or made) as input items. */
function contentToItems(content: Content): Item[] {
  const items: Item[] = [];
  let text = '';
  const flush = () => {
    if (text === '') return;
    items.push({ role: content.role === 'model' ? 'assistant' : 'user', content: text });
    text = '';
  };
  for (const part of content.parts) {
    if (part.functionCall) {
      flush();
      items.push({
        type: 'function_call',
        call_id: part.functionCall.id ?? '',
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    } else if (part.functionResponse) {
      flush();
      const value = part.functionResponse.response;
      const result = Object.keys(value).length === 1 && 'result' in value ? value.result : value;
      items.push({
        type: 'function_call_output',
        call_id: part.functionResponse.id ?? '',
        output: typeof result === 'string' ? result : JSON.stringify(result),
      });
    } else if (part.text !== undefined && !part.thought) {
      text += part.text;
    }
  }
  flush();
  return items.length > 0
    ? items
    : [{ role: content.role === 'model' ? 'assistant' : 'user', content: '' }];
}

/** The view as the forwarded `input`: instructions, the summary, then the tail's items. */
export function responsesViewInput(options: {
  view: ActiveView;
  conversation: DialectConversation;
}): Item[] {
  const history = viewHistory<Item>({
    ...options,
    summary: (text) => ({ role: 'user', content: text }),
    // A stored model turn groups several output items: forwarded as the client sent them.
    original: (message) =>
      isRecord(message) && Array.isArray(message.items) ? (message.items as Item[]) : undefined,
    rebuild: contentToItems,
  });
  return [...options.conversation.instructions, ...history];
}
