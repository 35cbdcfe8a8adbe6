/**
 * The upstream's answer as orrery stores it: a Chat Completions response's first choice, or the
 * same message put together from a stream's chunks (`ChatStreamAssembler`), with the usage the
 * provider reported. The client gets the provider's bytes; this is only what is stored.
 */
import type { UsageMetadata } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import type { StoredAnswer } from './dialect.js';
import { type ChatMessage, messageToContent } from './openai-chat-messages.js';
import { SseLines } from './sse-lines.js';

export function usageOf(usage: unknown): UsageMetadata | undefined {
  if (!isRecord(usage)) return undefined;
  const result: UsageMetadata = {};
  if (typeof usage.prompt_tokens === 'number') result.promptTokenCount = usage.prompt_tokens;
  if (typeof usage.completion_tokens === 'number')
    result.candidatesTokenCount = usage.completion_tokens;
  if (typeof usage.total_tokens === 'number') result.totalTokenCount = usage.total_tokens;
  const details = usage.prompt_tokens_details;
  if (isRecord(details) && typeof details.cached_tokens === 'number') {
    result.cachedContentTokenCount = details.cached_tokens;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function answerOf(message: ChatMessage, usage: unknown): StoredAnswer {
  const content = messageToContent({
    message: { ...message, role: 'assistant' },
    path: 'choices[0].message',
    callNames: new Map(),
  });
  const usageMetadata = usageOf(usage);
  return usageMetadata ? { content, usageMetadata } : { content };
}

/** A non-streamed response's answer, or `undefined` when it holds no message. */
export function completionAnswer(body: unknown): StoredAnswer | undefined {
  if (!isRecord(body) || !Array.isArray(body.choices)) return undefined;
  const choice: unknown = body.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) return undefined;
  return answerOf(choice.message, body.usage);
}

interface CallDelta {
  id?: string;
  name: string;
  arguments: string;
}

/** Puts a streamed answer together from its SSE bytes (choice 0; usage from any chunk). */
export class ChatStreamAssembler {
  private readonly lines = new SseLines();
  private text = '';
  private refusal = '';
  private readonly calls: CallDelta[] = [];
  private usage: unknown;
  private sawChoice = false;

  push(chunk: Uint8Array): void {
    for (const line of this.lines.push(chunk)) this.line(line);
  }

  private line(line: string): void {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return;
    }
    if (!isRecord(chunk)) return;
    if (isRecord(chunk.usage)) this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0 || !isRecord(choice.delta)) continue;
      this.sawChoice = true;
      const delta = choice.delta;
      if (typeof delta.content === 'string') this.text += delta.content;
      if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
      if (Array.isArray(delta.tool_calls)) this.toolCalls(delta.tool_calls);
    }
  }

  private toolCalls(deltas: unknown[]): void {
    for (const delta of deltas) {
      if (!isRecord(delta)) continue;
      const index = typeof delta.index === 'number' ? delta.index : this.calls.length;
      const call = this.calls[index] ?? { name: '', arguments: '' };
      this.calls[index] = call;
      if (typeof delta.id === 'string') call.id = delta.id;
      const fn = isRecord(delta.function) ? delta.function : undefined;
      if (typeof fn?.name === 'string') call.name += fn.name;
      if (typeof fn?.arguments === 'string') call.arguments += fn.arguments;
    }
  }

  /** The answer, or `undefined` when the stream held no choice (an error event, a cut). */
  finish(): StoredAnswer | undefined {
    for (const line of this.lines.end()) this.line(line);
    if (!this.sawChoice) return undefined;
    const calls = this.calls.filter((call) => call.id !== undefined && call.name !== '');
    const message: ChatMessage = {
      role: 'assistant',
      content: this.text === '' && calls.length > 0 ? null : this.text,
      ...(this.refusal === '' ? {} : { refusal: this.refusal }),
      ...(calls.length > 0
        ? {
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : {}),
    };
    return answerOf(message, this.usage);
  }
}
