/**
 * The OpenAI Responses API (`POST /openai/v1/responses`) as a gateway dialect, for stateless
 * clients (the whole history in `input`, `store: false`). The stored answer is the response's
 * `output` as one model content; a stream's `response.completed` event carries the whole
 * response, so the stream is put together from that one event.
 */
import type { UsageMetadata } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import type { Dialect, StoredAnswer, StreamAssembler } from './dialect.js';
import { openAiError } from './openai-errors.js';
import {
  outputContent,
  responsesConversation,
  responsesViewInput,
} from './openai-responses-items.js';
import { SseLines } from './sse-lines.js';

export const OPENAI_RESPONSES_PATH = '/openai/v1/responses';

function usageOf(usage: unknown): UsageMetadata | undefined {
  if (!isRecord(usage)) return undefined;
  const result: UsageMetadata = {};
  if (typeof usage.input_tokens === 'number') result.promptTokenCount = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') result.candidatesTokenCount = usage.output_tokens;
  if (typeof usage.total_tokens === 'number') result.totalTokenCount = usage.total_tokens;
  const details = usage.input_tokens_details;
  if (isRecord(details) && typeof details.cached_tokens === 'number' && details.cached_tokens > 0) {
    result.cachedContentTokenCount = details.cached_tokens;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function responseAnswer(body: unknown): StoredAnswer | undefined {
  if (!isRecord(body)) return undefined;
  const content = outputContent(body.output);
  if (!content) return undefined;
  const usageMetadata = usageOf(body.usage);
  return usageMetadata ? { content, usageMetadata } : { content };
}

class ResponsesStreamAssembler implements StreamAssembler {
  private readonly lines = new SseLines();
  private completed: unknown;

  push(chunk: Uint8Array): void {
    for (const line of this.lines.push(chunk)) this.line(line);
  }

  private line(line: string): void {
    if (!line.startsWith('data:')) return;
    try {
      const event: unknown = JSON.parse(line.slice(5).trim());
      if (isRecord(event) && event.type === 'response.completed') this.completed = event.response;
    } catch {
      // Not JSON (a keep-alive): nothing to keep.
    }
  }

  finish(): StoredAnswer | undefined {
    for (const line of this.lines.end()) this.line(line);
    return responseAnswer(this.completed);
  }
}

export const openAiResponsesDialect: Dialect = {
  provider: 'openai',
  path: OPENAI_RESPONSES_PATH,
  target: ({ body, baseUrl }) => ({
    model: body.model,
    stream: body.stream === true,
    upstreamUrl: `${baseUrl}/responses`,
  }),
  forwardedHeaders: ['authorization', 'openai-organization', 'openai-project', 'openai-beta'],
  returnedHeaders: ['openai-processing-ms', 'openai-version', 'x-ratelimit-limit-requests'],
  conversation: responsesConversation,
  forwardBody: ({ body, conversation, view }) => ({
    ...body,
    input: responsesViewInput({ view, conversation }),
  }),
  answer: responseAnswer,
  assembler: () => new ResponsesStreamAssembler(),
  error: openAiError,
};
