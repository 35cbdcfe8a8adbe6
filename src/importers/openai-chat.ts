/**
 * OpenAI chat transcripts: an array of messages, an object with `messages` (OpenHands
 * `llm_completions/*.json`, whose `response.choices[0].message` is appended as the last step),
 * or a list of runs each holding `traj` messages (tau-bench; pick one with `run`).
 *
 * `system`/`developer` messages become the session's instruction (`meta.systemInstruction`), not
 * events: orrery keeps the instruction outside the history, as ADK does.
 */
import type { Part } from '../events/types.js';
import { ImportError } from './errors.js';
import { isRecord, parseArguments, parseJsonInput, toEpochSeconds } from './json-input.js';
import { type BuilderCall, type BuilderStream, TranscriptBuilder } from './transcript-builder.js';
import type { ImportMeta, ImportResult, MultiRunImportOptions } from './types.js';

const FORMAT = 'openai-chat';

export interface OpenAiChatRun {
  messages: unknown[];
  /** Prefix of message paths in errors and repairs: `messages`, `[3].traj`. */
  path: string;
  meta: Partial<ImportMeta>;
  /** Epoch seconds of the last message, when the file records one. */
  endTime?: number;
}

/** The runs a document holds: one for a transcript, many for a tau-bench style list of runs. */
export function openAiChatRuns(input: string | unknown): OpenAiChatRun[] {
  const document = parseJsonInput(input, FORMAT);
  if (Array.isArray(document)) {
    if (document.length > 0 && document.every((item) => isRecord(item) && 'traj' in item)) {
      return document.map((item, index) =>
        trajRun(item as Record<string, unknown>, `[${index}]`, index, document.length),
      );
    }
    return [{ messages: document, path: '', meta: {} }];
  }
  if (isRecord(document)) {
    if (Array.isArray(document.messages)) return [completionRun(document)];
    if ('traj' in document) return [trajRun(document, '', 0, 1)];
  }
  throw new ImportError({
    message: 'expected an array of chat messages, an object with `messages`, or runs with `traj`',
    format: FORMAT,
  });
}

export function trajRun(
  item: Record<string, unknown>,
  path: string,
  index: number,
  count: number,
): OpenAiChatRun {
  if (!Array.isArray(item.traj)) {
    throw new ImportError({
      message: '`traj` must be an array of messages',
      path: `${path}.traj`,
      format: FORMAT,
    });
  }
  const sourceId =
    item.task_id === undefined
      ? undefined
      : `task ${String(item.task_id)}${item.trial === undefined ? '' : ` trial ${String(item.trial)}`}`;
  return {
    messages: item.traj,
    path: `${path}${path ? '.' : ''}traj`,
    meta: { run: count > 1 ? index : undefined, runCount: count > 1 ? count : undefined, sourceId },
  };
}

function completionRun(document: Record<string, unknown>): OpenAiChatRun {
  const messages = [...(document.messages as unknown[])];
  const meta: Partial<ImportMeta> = {};
  const response = isRecord(document.response) ? document.response : undefined;
  const choice = Array.isArray(response?.choices) ? response.choices[0] : undefined;
  if (isRecord(choice) && isRecord(choice.message)) messages.push(choice.message);
  if (typeof response?.model === 'string') meta.model = response.model;
  const kwargs = isRecord(document.kwargs) ? document.kwargs : undefined;
  const tools = Array.isArray(kwargs?.tools)
    ? kwargs.tools
    : Array.isArray(document.tools)
      ? document.tools
      : undefined;
  if (tools) meta.tools = tools;
  return {
    messages,
    path: 'messages',
    meta,
    endTime: toEpochSeconds(document.timestamp) ?? toEpochSeconds(response?.created),
  };
}

/** Import one run (`options.run`, default the first) of an OpenAI chat document. */
export function importOpenAiChat(
  input: string | unknown,
  options: MultiRunImportOptions = {},
): ImportResult {
  const runs = openAiChatRuns(input);
  const index = options.run ?? 0;
  const run = runs[index];
  if (!run) {
    throw new ImportError({
      message: `run ${index} does not exist: the file holds ${runs.length} run(s) (0-${runs.length - 1})`,
      format: FORMAT,
    });
  }
  return importOpenAiChatRun(run, options);
}

export function importOpenAiChatRun(
  run: OpenAiChatRun,
  options: MultiRunImportOptions = {},
): ImportResult {
  const reader = new OpenAiChatImport({ run, options });
  const last = run.messages.length - 1;
  run.messages.forEach((message, index) => {
    reader.addMessage(message, index, index === last);
  });
  return reader.finish();
}

/**
 * One run's messages, fed one at a time (`addMessage`): by `importOpenAiChatRun`, or by the
 * streamed import of a JSON array file with `stream` (docs/architecture.md#edge).
 */
export class OpenAiChatImport {
  private readonly builder: TranscriptBuilder;
  private readonly instructions: string[] = [];
  private conversationStarted = false;
  private readonly run: Omit<OpenAiChatRun, 'messages'>;

  constructor(options: {
    run: Omit<OpenAiChatRun, 'messages'>;
    options?: MultiRunImportOptions & { stream?: BuilderStream };
  }) {
    this.run = options.run;
    this.builder = new TranscriptBuilder({ ...options.options, format: FORMAT });
  }

  /** The builder's plan for a streamed import's second pass (after `finish`). */
  timestampPlan() {
    return this.builder.timestampPlan();
  }

  /** Message `index` of the run; `last`: the run's final message (it may take the end time). */
  addMessage(message: unknown, index: number, last: boolean): void {
    const { run, builder } = this;
    const location = run.path ? `${run.path}[${index}]` : `[${index}]`;
    if (!isRecord(message)) {
      throw new ImportError({
        message: 'a message must be an object',
        path: location,
        format: FORMAT,
      });
    }
    const timestamp = toEpochSeconds(message.timestamp) ?? (last ? run.endTime : undefined);
    const role = message.role;
    if (role === 'system' || role === 'developer') {
      const text = contentText(message.content, `${location}.content`);
      this.instructions.push(text);
      if (this.conversationStarted) {
        builder.repairs.push({
          kind: 'system_message_moved',
          message:
            'a system message in the middle of the conversation was moved into the instruction',
          location,
        });
      }
      return;
    }
    this.conversationStarted = true;
    if (role === 'user') {
      builder.userMessage({
        parts: contentParts(message.content, `${location}.content`),
        location,
        timestamp,
      });
    } else if (role === 'assistant') {
      const parts: Part[] = [];
      const reasoning = message.reasoning_content ?? message.reasoning;
      if (typeof reasoning === 'string' && reasoning !== '')
        parts.push({ text: reasoning, thought: true });
      if (message.content !== null && message.content !== undefined) {
        parts.push(...contentParts(message.content, `${location}.content`));
      }
      if (typeof message.refusal === 'string' && message.refusal !== '')
        parts.push({ text: message.refusal });
      const calls = toolCalls(message, location);
      if (parts.length === 0 && calls.length === 0) parts.push({ text: '' });
      builder.modelMessage({ parts, calls, location, timestamp });
    } else if (role === 'tool' || role === 'function') {
      const callId = typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined;
      const name = typeof message.name === 'string' ? message.name : undefined;
      const { response, media } = toolResponse(message.content, `${location}.content`);
      builder.toolResults({
        results: [{ callId, name, response }],
        extraParts: media,
        location,
        timestamp,
      });
    } else {
      throw new ImportError({
        message: `unknown role ${JSON.stringify(role)} (expected system, user, assistant or tool)`,
        path: `${location}.role`,
        format: FORMAT,
      });
    }
  }

  finish(): ImportResult {
    const { events, repairs } = this.builder.finish();
    const meta: ImportMeta = { format: FORMAT, ...dropUndefined(this.run.meta) };
    if (this.instructions.length > 0) meta.systemInstruction = this.instructions.join('\n\n');
    return { events, repairs, meta };
  }
}

function toolCalls(message: Record<string, unknown>, location: string): BuilderCall[] {
  const calls: BuilderCall[] = [];
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) {
      throw new ImportError({
        message: 'must be an array',
        path: `${location}.tool_calls`,
        format: FORMAT,
      });
    }
    message.tool_calls.forEach((call, index) => {
      const path = `${location}.tool_calls[${index}]`;
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      if (!fn || typeof fn.name !== 'string' || fn.name === '') {
        throw new ImportError({
          message: 'a tool call needs a function name',
          path: `${path}.function.name`,
          format: FORMAT,
        });
      }
      const id =
        isRecord(call) && typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
      calls.push({ id, name: fn.name, args: parseArguments(fn.arguments) });
    });
  }
  if (isRecord(message.function_call) && typeof message.function_call.name === 'string') {
    calls.push({
      name: message.function_call.name,
      args: parseArguments(message.function_call.arguments),
    });
  }
  return calls;
}

/** Content as parts: a string, or OpenAI content parts (text, image_url, input_audio, ...). */
export function contentParts(content: unknown, path: string): Part[] {
  if (content === null || content === undefined) return [{ text: '' }];
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) {
    throw new ImportError({
      message: 'content must be a string or an array of parts',
      path,
      format: FORMAT,
    });
  }
  return content.map((part, index): Part => {
    if (!isRecord(part)) {
      throw new ImportError({
        message: 'a content part must be an object',
        path: `${path}[${index}]`,
        format: FORMAT,
      });
    }
    if (part.type === 'text' || (part.type === undefined && typeof part.text === 'string')) {
      if (typeof part.text !== 'string') {
        throw new ImportError({
          message: 'a text part needs `text`',
          path: `${path}[${index}].text`,
          format: FORMAT,
        });
      }
      return { text: part.text };
    }
    if (part.type === 'image_url') {
      const url = isRecord(part.image_url) ? part.image_url.url : part.image_url;
      const data = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
      if (data?.[1] && data[2] !== undefined)
        return { inlineData: { mimeType: data[1], data: data[2] } };
      return { text: `[image: ${String(url)}]` };
    }
    if (part.type === 'input_audio' && isRecord(part.input_audio)) {
      const audio = part.input_audio;
      return {
        inlineData: {
          mimeType: `audio/${String(audio.format ?? 'wav')}`,
          data: String(audio.data ?? ''),
        },
      };
    }
    // Unknown part types are kept as their JSON, never dropped.
    return { text: JSON.stringify(part) };
  });
}

function contentText(content: unknown, path: string): string {
  return contentParts(content, path)
    .map((part) => part.text ?? '')
    .join('');
}

/**
 * A tool message's content as the function response. Images (data URLs) in a parts array become
 * `inlineData` parts beside it, noted `[image/png]` in the text: their base64 never counts as text.
 */
function toolResponse(
  content: unknown,
  path: string,
): { response: Record<string, unknown>; media: Part[] } {
  if (typeof content === 'string') return { response: { result: content }, media: [] };
  if (content === null || content === undefined) return { response: { result: '' }, media: [] };
  const parts = contentParts(content, path);
  const media = parts.filter((part) => part.inlineData !== undefined);
  const text = parts
    .map((part) => part.text ?? (part.inlineData ? `[${part.inlineData.mimeType}]` : ''))
    .join('');
  return { response: { result: text }, media };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
