import { APICallError, EmptyResponseBodyError, TypeValidationError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { classifyModelError, looksLikeContextOverflow, retryAfterMs } from './classify-error.js';
import { ModelError } from './errors.js';

function apiError(options: {
  statusCode?: number;
  message?: string;
  responseBody?: string;
  responseHeaders?: Record<string, string>;
  isRetryable?: boolean;
}): APICallError {
  return new APICallError({
    message: options.message ?? 'Bad Request',
    url: 'https://api.example.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: options.statusCode,
    responseBody: options.responseBody,
    responseHeaders: options.responseHeaders,
    isRetryable: options.isRetryable,
  });
}

function classify(error: unknown, options = {}): ModelError {
  const result = classifyModelError(error, { modelId: 'test:model', ...options });
  if (!ModelError.isInstance(result)) throw new Error(`not a ModelError: ${String(result)}`);
  return result;
}

describe('classifyModelError', () => {
  it.each([
    [
      'Gemini token count',
      400,
      'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
    ],
    ['Gemini payload size', 400, 'Request payload size exceeds the limit: 20971520 bytes.'],
    [
      'OpenAI chat',
      400,
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131245 tokens.",
    ],
    [
      'OpenAI code only',
      400,
      '{"error":{"message":"Invalid request","code":"context_length_exceeded"}}',
    ],
    ['Anthropic prompt', 400, 'prompt is too long: 208310 tokens > 200000 maximum'],
    [
      'Anthropic max_tokens',
      400,
      'input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000',
    ],
    ['llama.cpp', 400, 'request (4476 tokens) exceeds the available context size (4096 tokens)'],
    ['generic 413', 413, 'Payload Too Large'],
  ])('classifies %s as context_overflow', (_name, statusCode, message) => {
    const error = classify(apiError({ statusCode, message }));
    expect(error.kind).toBe('context_overflow');
    expect(error.statusCode).toBe(statusCode);
    expect(error.modelId).toBe('test:model');
    expect(error.message).toContain('test:model');
  });

  it('finds overflow wording in the raw body when the message is generic', () => {
    const body = JSON.stringify({
      object: 'error',
      message: "This model's maximum context length is 32768 tokens.",
    });
    expect(
      classify(apiError({ statusCode: 400, message: 'Bad Request', responseBody: body })).kind,
    ).toBe('context_overflow');
  });

  it('does not mistake a rate limit that mentions tokens for an overflow', () => {
    const error = classify(
      apiError({
        statusCode: 429,
        message:
          'Request too large for gpt-4.1 on tokens per min (TPM): Limit 30000, Requested 31000.',
      }),
    );
    expect(error.kind).toBe('retryable');
  });

  it.each([408, 429, 500, 502, 503, 504, 529])('classifies HTTP %i as retryable', (statusCode) => {
    expect(classify(apiError({ statusCode, message: 'try later' })).kind).toBe('retryable');
  });

  it('classifies an overloaded body as retryable whatever the status', () => {
    const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    expect(classify(apiError({ statusCode: 400, responseBody: body })).kind).toBe('retryable');
  });

  it.each([400, 401, 403, 404])('classifies a plain HTTP %i as fatal', (statusCode) => {
    const error = classify(apiError({ statusCode, message: 'invalid x-api-key' }));
    expect(error.kind).toBe('fatal');
    expect(error.message).toContain('invalid x-api-key');
    expect(error.cause).toBeInstanceOf(APICallError);
  });

  it('classifies connection failures as retryable', () => {
    const cannotConnect = apiError({
      message: 'Cannot connect to API: fetch failed',
      isRetryable: true,
    });
    expect(classify(cannotConnect).kind).toBe('retryable');
    const socket = new TypeError('fetch failed', {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(classify(socket).kind).toBe('retryable');
    expect(classify(new EmptyResponseBodyError()).kind).toBe('retryable');
  });

  it('classifies malformed responses and unknown errors as fatal', () => {
    const invalid = new TypeValidationError({ value: {}, cause: new Error('missing candidates') });
    expect(classify(invalid).kind).toBe('fatal');
    expect(classify('a string').message).toContain('a string');
  });

  it('passes aborts and existing ModelErrors through unchanged', () => {
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(classifyModelError(abort)).toBe(abort);
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    const reason = controller.signal.reason;
    expect(classifyModelError(reason, { signal: controller.signal })).toBe(reason);
    const existing = new ModelError({ kind: 'fatal', message: 'already classified' });
    expect(classifyModelError(existing)).toBe(existing);
  });

  it('reads retry-after on a retryable error', () => {
    const error = classify(apiError({ statusCode: 503, responseHeaders: { 'retry-after': '5' } }));
    expect(error.retryAfterMs).toBe(5000);
  });
});

describe('retryAfterMs', () => {
  const now = () => Date.parse('2025-09-10T16:20:00Z');

  it('prefers retry-after-ms, then retry-after seconds or date, then Gemini RetryInfo', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250.4', 'retry-after': '9' })).toBe(251);
    expect(retryAfterMs({ 'Retry-After': '1.5' })).toBe(1500);
    expect(retryAfterMs({ 'retry-after': 'Wed, 10 Sep 2025 16:20:45 GMT' }, undefined, now)).toBe(
      45_000,
    );
    expect(retryAfterMs({ 'retry-after': 'Wed, 10 Sep 2025 16:19:00 GMT' }, undefined, now)).toBe(
      0,
    );
    expect(retryAfterMs({}, '{"details":[{"retryDelay": "12.5s"}]}')).toBe(12_500);
  });

  it('ignores absent or unreadable values', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-3' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': 'x', 'retry-after': '2' })).toBe(2000);
  });
});

describe('looksLikeContextOverflow', () => {
  it('only reads overflow wording on client-error statuses', () => {
    expect(looksLikeContextOverflow(400, 'prompt is too long')).toBe(true);
    expect(looksLikeContextOverflow(undefined, 'prompt is too long')).toBe(true);
    expect(looksLikeContextOverflow(500, 'prompt is too long')).toBe(false);
    expect(looksLikeContextOverflow(400, 'image too small')).toBe(false);
    expect(looksLikeContextOverflow(400, 'Invalid value for temperature')).toBe(false);
  });
});
