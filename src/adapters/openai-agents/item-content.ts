/**
 * An OpenAI Agents item (`AgentInputItem`, the Responses API shape) as orrery content, and
 * back. The stored event keeps the original item beside this content (`item-events.ts`), so the
 * content only has to serve compaction: texts for the summarizer, and every tool call and its
 * output as a `functionCall` / `functionResponse` pair with the item's `callId`, so the safe
 * split never separates them. Items read defensively: the SDK grows new item types.
 */
import type { Content, Part } from '../../events/types.js';

/** An item as stored: a JSON object (the SDK's types are not needed to read one). */
export type ItemRecord = Record<string, unknown>;

/** Item types that call a tool, and the name the call gets when the item carries none. */
const CALL_TYPES: Readonly<Record<string, string>> = {
  function_call: 'function',
  computer_call: 'computer',
  shell_call: 'shell',
  apply_patch_call: 'apply_patch',
  tool_search_call: 'tool_search',
  program: 'program',
};

/** Item types that answer a call by `callId`. */
const RESULT_TYPES: Readonly<Record<string, string>> = {
  function_call_result: 'function',
  computer_call_result: 'computer',
  shell_call_output: 'shell',
  apply_patch_call_output: 'apply_patch',
  tool_search_output: 'tool_search',
  program_output: 'program',
};

function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isRecord(value: unknown): value is ItemRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The text of one content entry of a message (`input_text`, `output_text`, images, ...). */
function entryText(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  if (!isRecord(entry)) return '';
  const text = asString(entry.text) ?? asString(entry.refusal) ?? asString(entry.transcript);
  if (text !== undefined) return entry.type === 'refusal' ? `Refusal: ${text}` : text;
  const type = asString(entry.type) ?? 'content';
  const name = asString(entry.filename) ?? asString(entry.image) ?? asString(entry.file);
  // A data URL is the file itself: name it, do not copy it into the summary.
  return name && !name.startsWith('data:') ? `[${type}: ${name}]` : `[${type}]`;
}

/** The text of a message's or a tool output's `content` / `output` (a string or entries). */
export function itemText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(entryText).join('\n');
  if (isRecord(value)) return entryText(value);
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** A call's arguments as an object: JSON arguments parsed, anything else kept whole. */
function callArgs(item: ItemRecord): Record<string, unknown> {
  const raw = item.arguments;
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isRecord(parsed)) return parsed;
    } catch {
      // Not JSON: the model's text, kept as written below.
    }
    return { arguments: raw };
  }
  const args: Record<string, unknown> = {};
  for (const key of ['action', 'actions', 'operation', 'arguments', 'code']) {
    if (item[key] !== undefined) args[key] = item[key];
  }
  return args;
}

/** The call id of an item that calls or answers a tool, when it has one. */
export function callIdOf(item: ItemRecord): string | undefined {
  return asString(item.callId) ?? asString(item.call_id);
}

/** Whether the item answers a call (its `callId` names the call). */
export function isResultItem(item: ItemRecord): boolean {
  const type = asString(item.type);
  return type !== undefined && type in RESULT_TYPES && callIdOf(item) !== undefined;
}

/** A user's own message (not a tool output): it starts a turn. */
export function isUserMessage(item: ItemRecord): boolean {
  return (item.type === undefined || item.type === 'message') && item.role === 'user';
}

function textContent(role: Content['role'], text: string, thought?: boolean): Content {
  const part: Part = thought ? { text, thought: true } : { text };
  return { role, parts: [part] };
}

/** The item as orrery content: what the summarizer reads and the safe split pairs. */
export function itemToContent(item: ItemRecord): Content {
  const type = asString(item.type) ?? 'message';
  const callId = callIdOf(item);
  if (type === 'message') {
    const text = itemText(item.content);
    if (item.role === 'assistant') return textContent('model', text);
    // System and developer messages are instructions the summary should keep: user-side text.
    return textContent('user', item.role === 'user' ? text : `[${String(item.role)}] ${text}`);
  }
  if (callId !== undefined && type in CALL_TYPES) {
    const name = asString(item.name) ?? CALL_TYPES[type]!;
    return { role: 'model', parts: [{ functionCall: { id: callId, name, args: callArgs(item) } }] };
  }
  if (callId !== undefined && type in RESULT_TYPES) {
    const name = asString(item.name) ?? RESULT_TYPES[type]!;
    const result = itemText(item.output ?? item.content ?? item.tools);
    return {
      role: 'user',
      parts: [{ functionResponse: { id: callId, name, response: { result } } }],
    };
  }
  if (type === 'reasoning') {
    const text = itemText(item.content) || itemText(item.rawContent);
    return textContent('model', text === '' ? '[reasoning]' : text, true);
  }
  if (type === 'hosted_tool_call') {
    const name = asString(item.name) ?? 'hosted tool';
    const output = asString(item.output);
    return textContent('model', `[${name}]${output ? ` ${output}` : ''}`);
  }
  if (type === 'compaction') return textContent('model', '[compacted context]');
  // An item type this adapter does not know: its JSON, so the summary still sees it.
  return textContent('model', JSON.stringify(item));
}

/**
 * Items for an event this adapter did not write (another runtime's session, an import): its
 * texts as a message and its calls and results as function items. Thoughts are left out.
 */
export function contentToItems(content: Content): ItemRecord[] {
  const items: ItemRecord[] = [];
  const texts: string[] = [];
  const flushText = () => {
    if (texts.length === 0) return;
    const text = texts.join('\n');
    texts.length = 0;
    items.push(
      content.role === 'model'
        ? {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text }],
          }
        : { type: 'message', role: 'user', content: text },
    );
  };
  for (const part of content.parts) {
    if (part.thought) continue;
    if (part.text !== undefined) {
      texts.push(part.text);
    } else if (part.functionCall) {
      flushText();
      const call = part.functionCall;
      items.push({
        type: 'function_call',
        callId: call.id,
        name: call.name,
        arguments: JSON.stringify(call.args),
        status: 'completed',
      });
    } else if (part.functionResponse) {
      flushText();
      const response = part.functionResponse;
      items.push({
        type: 'function_call_result',
        callId: response.id,
        name: response.name,
        status: 'completed',
        output: { type: 'text', text: JSON.stringify(response.response) },
      });
    }
  }
  flushText();
  return items;
}
