/**
 * Gemini `generateContent` contents and orrery contents. They are the same shape (orrery's
 * events hold Gemini contents), so a request's content maps part for part; what differs is the
 * call ids. Gemini's API often sends function calls without an `id` and pairs a
 * `functionResponse` with its call by name and order. The view pairs calls and results by id,
 * so a call without one gets a stable id from its place in the conversation
 * (`gemini-call:<message>:<part>`) and a response without one takes the id of the oldest
 * unanswered call of the same name. The forwarded request holds the client's own content
 * wherever the view shows it unchanged; a content the view rebuilt leaves the made-up ids out.
 */

import type { ActiveView } from '../compaction/view.js';
import type { Content, Part } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import type { DialectConversation } from './dialect.js';
import { GatewayRequestError } from './errors.js';
import { viewHistory } from './view-history.js';

type GeminiContent = Record<string, unknown>;

/** Prefix of the ids the gateway gives calls that came without one (never forwarded). */
export const MADE_UP_CALL_ID_PREFIX = 'gemini-call:';

/** Unanswered calls by name, oldest first (a response without an id takes the first). */
type OpenCalls = Map<string, string[]>;

const COPIED_FIELDS = [
  'text',
  'thought',
  'thoughtSignature',
  'inlineData',
  'fileData',
  'executableCode',
  'codeExecutionResult',
] as const;

function partOf(options: {
  part: unknown;
  where: string;
  messageIndex: number;
  partIndex: number;
  open: OpenCalls;
}): Part {
  const { part, where, open } = options;
  if (!isRecord(part)) {
    throw new GatewayRequestError({
      field: where,
      value: part,
      message: 'a part must be an object',
    });
  }
  const result: Part = {};
  for (const field of COPIED_FIELDS) {
    if (part[field] !== undefined) (result as Record<string, unknown>)[field] = part[field];
  }
  if (part.functionCall !== undefined) {
    const call = part.functionCall;
    if (!isRecord(call) || typeof call.name !== 'string' || call.name === '') {
      throw new GatewayRequestError({
        field: `${where}.functionCall.name`,
        value: isRecord(call) ? call.name : call,
        message: 'a function call needs a name',
      });
    }
    const id =
      typeof call.id === 'string' && call.id !== ''
        ? call.id
        : `${MADE_UP_CALL_ID_PREFIX}${options.messageIndex}:${options.partIndex}`;
    open.set(call.name, [...(open.get(call.name) ?? []), id]);
    result.functionCall = { id, name: call.name, args: isRecord(call.args) ? call.args : {} };
  }
  if (part.functionResponse !== undefined) {
    const response = part.functionResponse;
    if (!isRecord(response) || typeof response.name !== 'string' || response.name === '') {
      throw new GatewayRequestError({
        field: `${where}.functionResponse.name`,
        value: isRecord(response) ? response.name : response,
        message: 'a function response needs the name of its call',
      });
    }
    const waiting = open.get(response.name) ?? [];
    let id: string;
    if (typeof response.id === 'string' && response.id !== '') {
      id = response.id;
      open.set(
        response.name,
        waiting.filter((open) => open !== id),
      );
    } else {
      id =
        waiting.shift() ?? `${MADE_UP_CALL_ID_PREFIX}${options.messageIndex}:${options.partIndex}`;
    }
    result.functionResponse = {
      id,
      name: response.name,
      response: isRecord(response.response) ? response.response : { result: response.response },
    };
  }
  if (Object.keys(result).length === 0) result.text = JSON.stringify(part);
  return result;
}

/** One Gemini content as an orrery content (`open`: the conversation's unanswered calls). */
export function geminiContentToContent(options: {
  content: unknown;
  index: number;
  path: string;
  open: OpenCalls;
}): Content {
  const { content, path } = options;
  if (!isRecord(content)) {
    throw new GatewayRequestError({
      field: path,
      value: content,
      message: 'a content must be an object',
    });
  }
  const role = content.role ?? 'user';
  if (role !== 'user' && role !== 'model' && role !== 'function') {
    throw new GatewayRequestError({
      field: `${path}.role`,
      value: content.role,
      message: 'expected user or model',
    });
  }
  if (!Array.isArray(content.parts)) {
    throw new GatewayRequestError({
      field: `${path}.parts`,
      value: content.parts,
      message: 'expected an array of parts',
    });
  }
  const parts = content.parts.map((part: unknown, partIndex) =>
    partOf({
      part,
      where: `${path}.parts[${partIndex}]`,
      messageIndex: options.index,
      partIndex,
      open: options.open,
    }),
  );
  if (parts.length === 0) parts.push({ text: '' });
  return { role: role === 'model' ? 'model' : 'user', parts };
}

function instructionText(instruction: unknown): string {
  if (typeof instruction === 'string') return instruction;
  if (!isRecord(instruction) || !Array.isArray(instruction.parts)) return '';
  return instruction.parts
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}

export function geminiConversation(body: Record<string, unknown>): DialectConversation {
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    throw new GatewayRequestError({
      field: 'contents',
      value: body.contents,
      message: 'expected a non-empty array of contents',
    });
  }
  const open: OpenCalls = new Map();
  const messages: GeminiContent[] = [];
  const contents: Content[] = [];
  body.contents.forEach((content: unknown, index) => {
    contents.push(geminiContentToContent({ content, index, path: `contents[${index}]`, open }));
    messages.push(content as GeminiContent);
  });
  return {
    messages,
    contents,
    instructions: [],
    instruction: instructionText(body.systemInstruction ?? body.system_instruction),
    tools: Array.isArray(body.tools) ? body.tools : [],
  };
}

/** A content the view changed (or made) as a Gemini content, without the made-up call ids. */
export function contentToGemini(content: Content): GeminiContent {
  const parts = content.parts.map((part) => {
    const copy: Record<string, unknown> = { ...part };
    if (part.functionCall?.id?.startsWith(MADE_UP_CALL_ID_PREFIX)) {
      const { id: _id, ...call } = part.functionCall;
      copy.functionCall = call;
    }
    if (part.functionResponse?.id?.startsWith(MADE_UP_CALL_ID_PREFIX)) {
      const { id: _id, ...response } = part.functionResponse;
      copy.functionResponse = response;
    }
    return copy;
  });
  return { role: content.role, parts: parts.length > 0 ? parts : [{ text: '' }] };
}

/** The view as Gemini contents: the summary first, then the client's own contents where unchanged. */
export function geminiViewContents(options: {
  view: ActiveView;
  conversation: DialectConversation;
}): GeminiContent[] {
  return viewHistory<GeminiContent>({
    ...options,
    summary: (text) => ({ role: 'user', parts: [{ text }] }),
    original: (message) => [message as GeminiContent],
    rebuild: (content) => [contentToGemini(content)],
  });
}
