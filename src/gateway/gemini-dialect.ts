/**
 * Gemini `generateContent` and `streamGenerateContent` (`POST
 * /gemini/v1beta/models/{model}:generateContent`, `...:streamGenerateContent?alt=sse`) as a
 * gateway dialect: the model and the stream are in the URL, the key in `x-goog-api-key` or
 * `?key=` (sent upstream as the header, so it is in no URL), the first candidate's content is
 * the stored answer (a stream's chunks put together), and errors in Google's shape
 * (`{ error: { code, message, status } }`).
 */
import type { Content, UsageMetadata } from '../events/types.js';
import { isRecord } from '../importers/json-input.js';
import type { Dialect, DialectConversation, StoredAnswer, StreamAssembler } from './dialect.js';
import { GatewayRequestError } from './errors.js';
import {
  geminiContentToContent,
  geminiConversation,
  geminiViewContents,
} from './gemini-contents.js';
import { SseLines } from './sse-lines.js';

export const GEMINI_PATH = '/gemini/:version{v1beta|v1|v1alpha}/models/:target';
export const GEMINI_PATH_PREFIX = '/gemini/';

const ACTIONS = new Set(['generateContent', 'streamGenerateContent']);

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
};

const USAGE_NUMBERS = [
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
  'cachedContentTokenCount',
  'thoughtsTokenCount',
  'toolUsePromptTokenCount',
] as const;

function usageOf(usage: unknown): UsageMetadata | undefined {
  if (!isRecord(usage)) return undefined;
  const result: UsageMetadata = {};
  for (const field of USAGE_NUMBERS) {
    const value = usage[field];
    if (typeof value === 'number') result[field] = value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function firstCandidateContent(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body.candidates)) return undefined;
  const [first] = body.candidates;
  return isRecord(first) ? first.content : undefined;
}

function stored(
  content: unknown,
  usage: unknown,
  conversation: DialectConversation,
): StoredAnswer | undefined {
  if (!isRecord(content) || !Array.isArray(content.parts)) return undefined;
  let mapped: Content;
  try {
    mapped = geminiContentToContent({
      content: { ...content, role: 'model' },
      index: conversation.contents.length,
      path: 'candidates[0].content',
      open: new Map(),
    });
  } catch {
    return undefined;
  }
  const usageMetadata = usageOf(usage);
  return usageMetadata ? { content: mapped, usageMetadata } : { content: mapped };
}

/** The chunks' parts joined: adjacent text of the same kind merged, everything else kept. */
class GeminiStreamAssembler implements StreamAssembler {
  private readonly lines = new SseLines();
  private readonly parts: Record<string, unknown>[] = [];
  private usage: unknown;
  private started = false;

  constructor(private readonly conversation: DialectConversation) {}

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
    if (event.usageMetadata !== undefined) this.usage = event.usageMetadata;
    const content = firstCandidateContent(event);
    if (!isRecord(content) || !Array.isArray(content.parts)) return;
    this.started = true;
    for (const part of content.parts) {
      if (!isRecord(part)) continue;
      const last = this.parts.at(-1);
      const isText = typeof part.text === 'string' && Object.keys(part).every(textField);
      if (
        isText &&
        last &&
        typeof last.text === 'string' &&
        Object.keys(last).every(textField) &&
        (last.thought === true) === (part.thought === true)
      ) {
        last.text += String(part.text);
        if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
      } else {
        this.parts.push({ ...part });
      }
    }
  }

  finish(): StoredAnswer | undefined {
    for (const line of this.lines.end()) this.line(line);
    if (!this.started) return undefined;
    return stored({ role: 'model', parts: this.parts }, this.usage, this.conversation);
  }
}

function textField(field: string): boolean {
  return field === 'text' || field === 'thought' || field === 'thoughtSignature';
}

function geminiError(options: { status: number; message: string }): Response {
  return new Response(
    JSON.stringify({
      error: {
        code: options.status,
        message: options.message,
        status: STATUS_NAMES[options.status] ?? 'UNKNOWN',
      },
    }),
    { status: options.status, headers: { 'content-type': 'application/json' } },
  );
}

/** `gemini-2.5-flash:generateContent` -> the model and the action (throws naming the URL). */
function modelAndAction(target: string): { model: string; action: string } {
  const colon = target.lastIndexOf(':');
  const model = colon === -1 ? '' : decodeURIComponent(target.slice(0, colon));
  const action = colon === -1 ? target : target.slice(colon + 1);
  if (!ACTIONS.has(action)) {
    throw new GatewayRequestError({
      field: 'url',
      value: target,
      message: 'expected models/{model}:generateContent or models/{model}:streamGenerateContent',
      status: 404,
    });
  }
  return { model, action };
}

export const geminiDialect: Dialect = {
  provider: 'gemini',
  path: GEMINI_PATH,
  target({ params, baseUrl }) {
    const { model, action } = modelAndAction(params.target ?? '');
    const stream = action === 'streamGenerateContent';
    const version = params.version ?? 'v1beta';
    return {
      model,
      stream,
      upstreamUrl: `${baseUrl}/${version}/models/${encodeURIComponent(model)}:${action}${stream ? '?alt=sse' : ''}`,
    };
  },
  credentialHeaders(url): Record<string, string> {
    const key = url.searchParams.get('key');
    return key === null ? {} : { 'x-goog-api-key': key };
  },
  forwardedHeaders: ['x-goog-api-key', 'authorization', 'x-goog-user-project'],
  returnedHeaders: ['x-gemini-service-tier', 'server-timing'],
  conversation: geminiConversation,
  forwardBody: ({ body, conversation, view }) => ({
    ...body,
    contents: geminiViewContents({ view, conversation }),
  }),
  answer: (body, conversation) =>
    stored(
      firstCandidateContent(body),
      isRecord(body) ? body.usageMetadata : undefined,
      conversation,
    ),
  assembler: (conversation) => new GeminiStreamAssembler(conversation),
  error: geminiError,
};
