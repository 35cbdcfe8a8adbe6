/**
 * Maps provider failures (AI SDK `APICallError` and friends) to orrery's `ModelError` kinds, so
 * the runtime knows whether to compact and retry (`context_overflow`), back off (`retryable`),
 * or give up (`fatal`). Provider wording is matched on the message and the raw response body,
 * because OpenAI-compatible servers (vLLM, llama.cpp) do not all use OpenAI's error shape.
 */
import { APICallError, EmptyResponseBodyError } from '@ai-sdk/provider';
import { errorMessage } from '../util/error-message.js';
import { ModelError } from './errors.js';

// Wording of context-overflow errors as the providers send them:
// Gemini:    400 INVALID_ARGUMENT "The input token count (1200293) exceeds the maximum number of
//            tokens allowed (1048576)." / "Request payload size exceeds the limit: ..."
// OpenAI:    code `context_length_exceeded`, "This model's maximum context length is ..." (chat),
//            "Your input exceeds the context window of this model." (responses)
// Anthropic: "prompt is too long: 208310 tokens > 200000 maximum", "input length and
//            `max_tokens` exceed context limit: ...", 413 `request_too_large`
// vLLM:      "This model's maximum context length is 32768 tokens. However, you requested ..."
// llama.cpp: `exceed_context_size_error`, "request (4476 tokens) exceeds the available context size"
const overflowPatterns: readonly RegExp[] = [
  /context_length_exceeded/i,
  /maximum context length/i,
  /exceeds? the context window/i,
  /exceeds? (?:the )?context limit/i,
  /exceeds the maximum number of tokens/i,
  /request payload size exceeds/i,
  /prompt is too long/i,
  /input is too long/i,
  /too many (?:input )?tokens/i,
  /exceed_context_size_error/i,
  /exceeds the available context size/i,
  /request_too_large/i,
  /(?:request|payload|prompt|input|context)\b[^.]{0,40}\btoo large/i,
];

// Status codes whose body may describe an overflow; a 429 or 5xx never does (rate-limit
// messages also mention tokens, e.g. "tokens per min").
const overflowStatusCodes = new Set([400, 413, 422]);

const retryableStatusCodes = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

const retryableNetworkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

export interface ClassifyModelErrorOptions {
  /** Named in the message and stored on the error. */
  modelId?: string;
  /** When this signal is aborted, the error is the caller's own abort and passes through. */
  signal?: AbortSignal;
  /** Clock for HTTP-date `retry-after` values (tests). */
  now?: () => number;
}

/**
 * The error to throw for a failed model call: a `ModelError`, or the original error unchanged
 * when it is an abort (the caller's signal or an `AbortError`), or already a `ModelError`.
 */
export function classifyModelError(
  error: unknown,
  options: ClassifyModelErrorOptions = {},
): unknown {
  if (ModelError.isInstance(error)) return error;
  if (options.signal?.aborted || isAbortError(error)) return error;
  const prefix = options.modelId === undefined ? '' : `${options.modelId}: `;

  if (APICallError.isInstance(error)) {
    const statusCode = error.statusCode;
    const text = `${error.message}\n${error.responseBody ?? ''}`;
    const status = statusCode === undefined ? '' : ` (HTTP ${statusCode})`;
    if (looksLikeContextOverflow(statusCode, text)) {
      return new ModelError({
        kind: 'context_overflow',
        message: `${prefix}context window exceeded${status}: ${error.message}`,
        statusCode,
        modelId: options.modelId,
        cause: error,
      });
    }
    if (
      (statusCode !== undefined && (retryableStatusCodes.has(statusCode) || statusCode >= 500)) ||
      (statusCode === undefined && error.isRetryable) ||
      /overloaded/i.test(text)
    ) {
      return new ModelError({
        kind: 'retryable',
        message: `${prefix}temporary provider failure${status}: ${error.message}`,
        statusCode,
        retryAfterMs: retryAfterMs(error.responseHeaders, error.responseBody, options.now),
        modelId: options.modelId,
        cause: error,
      });
    }
    return new ModelError({
      kind: 'fatal',
      message: `${prefix}model call failed${status}: ${error.message}`,
      statusCode,
      modelId: options.modelId,
      cause: error,
    });
  }

  if (EmptyResponseBodyError.isInstance(error) || isNetworkError(error)) {
    return new ModelError({
      kind: 'retryable',
      message: `${prefix}temporary provider failure: ${errorMessage(error)}`,
      modelId: options.modelId,
      cause: error,
    });
  }

  return new ModelError({
    kind: 'fatal',
    message: `${prefix}model call failed: ${errorMessage(error)}`,
    modelId: options.modelId,
    cause: error,
  });
}

/** Whether a status and error text describe a request over the model's context window. */
export function looksLikeContextOverflow(statusCode: number | undefined, text: string): boolean {
  if (statusCode === 413) return true;
  if (statusCode !== undefined && !overflowStatusCodes.has(statusCode)) return false;
  return overflowPatterns.some((pattern) => pattern.test(text));
}

/**
 * Milliseconds to wait before retrying, from `retry-after-ms`, `retry-after` (seconds or an
 * HTTP date), or Gemini's `RetryInfo.retryDelay` in the body (e.g. `"37s"`).
 */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  body?: string,
  now: () => number = Date.now,
): number | undefined {
  const header = (name: string): string | undefined => {
    if (headers === undefined) return undefined;
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() === name) return value.trim();
    }
    return undefined;
  };
  const milliseconds = header('retry-after-ms');
  if (milliseconds !== undefined) {
    const value = Number(milliseconds);
    if (milliseconds !== '' && Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const retryAfter = header('retry-after');
  if (retryAfter !== undefined && retryAfter !== '') {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now());
  }
  const delay = body?.match(/"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/);
  if (delay?.[1] !== undefined) return Math.ceil(Number(delay[1]) * 1000);
  return undefined;
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

function isNetworkError(error: unknown): boolean {
  let current: unknown = error;
  // Node's fetch wraps socket errors: TypeError('fetch failed') with the code on `cause`.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && retryableNetworkCodes.has(code)) return true;
    current = current.cause;
  }
  return false;
}
