/**
 * Anthropic Messages (`POST /anthropic/v1/messages`) as a gateway dialect: the answer's content
 * blocks stored as one model content, a stream's events (`content_block_start`,
 * `content_block_delta`, `message_delta`) put together the same way, and errors in Anthropic's
 * shape (`{ type: 'error', error: { type, message } }`).
 */
import type { UsageMetadata } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import {
  anthropicConversation,
  anthropicMessageToContent,
  anthropicViewMessages,
} from './anthropic-messages.js';
import type { Dialect, StoredAnswer, StreamAssembler } from './dialect.js';
import { SseLines } from './sse-lines.js';

export const ANTHROPIC_MESSAGES_PATH = '/anthropic/v1/messages';

function usageOf(usage: unknown): UsageMetadata | undefined {
  if (!isRecord(usage)) return undefined;
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  const cached = number(usage.cache_read_input_tokens);
  // Anthropic counts cached and cache-written input apart from `input_tokens`: the prompt is all three.
  const prompt = number(usage.input_tokens) + cached + number(usage.cache_creation_input_tokens);
  const output = number(usage.output_tokens);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
  };
}

function answerOf(content: unknown, usage: unknown): StoredAnswer | undefined {
  if (!Array.isArray(content)) return undefined;
  const stored = anthropicMessageToContent({
    message: { role: 'assistant', content },
    path: 'content',
    callNames: new Map(),
  });
  const usageMetadata = usageOf(usage);
  return usageMetadata ? { content: stored, usageMetadata } : { content: stored };
}

class AnthropicStreamAssembler implements StreamAssembler {
  private readonly lines = new SseLines();
  private readonly blocks: Record<string, unknown>[] = [];
  private readonly json: string[] = [];
  private usage: Record<string, unknown> = {};
  private started = false;

  push(chunk: Uint8Array): void {
    for (const line of this.lines.push(chunk)) this.line(line);
  }

  private line(line: string): void {
    if (!line.startsWith('data:')) return;
    let event: unknown;
    try {
      event = JSON.parse(line.slice(5).trim());
    } catch {
      return;
    }
    if (!isRecord(event)) return;
    const index = typeof event.index === 'number' ? event.index : 0;
    if (event.type === 'message_start' && isRecord(event.message)) {
      this.started = true;
      if (isRecord(event.message.usage)) this.usage = { ...event.message.usage };
    } else if (event.type === 'content_block_start' && isRecord(event.content_block)) {
      this.blocks[index] = { ...event.content_block };
      this.json[index] = '';
    } else if (event.type === 'content_block_delta' && isRecord(event.delta)) {
      const block = this.blocks[index];
      const delta = event.delta;
      if (!block) return;
      if (delta.type === 'text_delta')
        block.text = String(block.text ?? '') + String(delta.text ?? '');
      if (delta.type === 'thinking_delta') {
        block.thinking = String(block.thinking ?? '') + String(delta.thinking ?? '');
      }
      if (delta.type === 'input_json_delta') this.json[index] += String(delta.partial_json ?? '');
    } else if (event.type === 'message_delta' && isRecord(event.usage)) {
      this.usage = { ...this.usage, ...event.usage };
    }
  }

  finish(): StoredAnswer | undefined {
    for (const line of this.lines.end()) this.line(line);
    if (!this.started) return undefined;
    const content = this.blocks.filter(Boolean).map((block, index) => {
      if (block.type !== 'tool_use') return block;
      const text = this.json[index] ?? '';
      let input: unknown = block.input ?? {};
      try {
        if (text !== '') input = JSON.parse(text);
      } catch {
        input = { _unparsedArguments: text };
      }
      return { ...block, input };
    });
    return answerOf(content, this.usage);
  }
}

function anthropicError(options: { status: number; message: string; type: string }): Response {
  return new Response(
    JSON.stringify({ type: 'error', error: { type: options.type, message: options.message } }),
    { status: options.status, headers: { 'content-type': 'application/json' } },
  );
}

export const anthropicMessagesDialect: Dialect = {
  provider: 'anthropic',
  path: ANTHROPIC_MESSAGES_PATH,
  target: ({ body, baseUrl }) => ({
    model: body.model,
    stream: body.stream === true,
    upstreamUrl: `${baseUrl}/v1/messages`,
  }),
  forwardedHeaders: ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta'],
  returnedHeaders: ['request-id', 'anthropic-ratelimit-requests-remaining'],
  conversation: anthropicConversation,
  forwardBody: ({ body, conversation, view }) => ({
    ...body,
    messages: anthropicViewMessages({ view, conversation }),
  }),
  answer: (body) => (isRecord(body) ? answerOf(body.content, body.usage) : undefined),
  assembler: () => new AnthropicStreamAssembler(),
  error: anthropicError,
};
