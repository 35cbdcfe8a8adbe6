/**
 * The Gemini API's `cachedContents` resource (ai.google.dev/api/caching): create one holding a
 * request's stable prefix, delete one. Plain `fetch`, outside the AI SDK, whose Google provider
 * only takes the name of an existing cache (`providerOptions.google.cachedContent`).
 * docs/cost.md#gemini-explicit-caching
 */
import { OrreryError } from '../events/errors.js';
import { maskCredentials } from '../redaction/index.js';
import type { FunctionDeclaration } from './types.js';

const cacheMarker = 'orrery.error.GeminiCacheError';
const cacheSymbol = Symbol.for(cacheMarker);

/**
 * A `cachedContents` call failed (network, an HTTP error, an answer without a `name`). Never
 * fails a turn: the request goes without the cache and the error is logged.
 */
export class GeminiCacheError extends OrreryError {
  protected readonly [cacheSymbol] = true;
  readonly operation: 'create' | 'delete';
  /** The HTTP status, when the API answered. */
  readonly statusCode?: number;
  /** The cache's name (`cachedContents/...`) for a delete. */
  readonly cacheName?: string;

  constructor(options: {
    operation: 'create' | 'delete';
    message: string;
    statusCode?: number;
    cacheName?: string;
    cause?: unknown;
  }) {
    super({
      name: 'GeminiCacheError',
      message: maskCredentials(`cachedContents ${options.operation}: ${options.message}`),
      cause: options.cause,
    });
    this.operation = options.operation;
    this.statusCode = options.statusCode;
    this.cacheName = options.cacheName;
  }

  static override isInstance(error: unknown): error is GeminiCacheError {
    return OrreryError.hasMarker(error, cacheMarker);
  }
}

export interface GeminiApiSettings {
  apiKey: string;
  /** e.g. `https://generativelanguage.googleapis.com/v1beta` (the AI SDK's default). */
  baseURL: string;
  fetch: typeof globalThis.fetch;
}

/** The stable prefix of a request, in the Gemini API's shapes. */
export interface CachedPrefix {
  /** `gemini-2.5-flash` or `models/gemini-2.5-flash`. */
  model: string;
  systemInstruction?: string;
  tools?: readonly FunctionDeclaration[];
  /** The compaction summary's text (the first user content after a compaction). */
  summaryText?: string;
  ttlSeconds: number;
}

/** The `POST {baseURL}/cachedContents` body of a prefix. */
export function cachedContentBody(prefix: CachedPrefix): Record<string, unknown> {
  const model = prefix.model.includes('/') ? prefix.model : `models/${prefix.model}`;
  const tools = prefix.tools ?? [];
  return {
    model,
    ...(prefix.systemInstruction && {
      systemInstruction: { parts: [{ text: prefix.systemInstruction }] },
    }),
    ...(prefix.summaryText !== undefined && {
      contents: [{ role: 'user', parts: [{ text: prefix.summaryText }] }],
    }),
    ...(tools.length > 0 && {
      // JSON Schema as it is (`parametersJsonSchema`, which the AI SDK also falls back to), and
      // the AI SDK's `toolChoice: auto`: a request using the cache may send neither.
      tools: [
        {
          functionDeclarations: tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            parametersJsonSchema: tool.parameters,
          })),
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    }),
    ttl: `${prefix.ttlSeconds}s`,
  };
}

export interface CreatedCache {
  /** `cachedContents/...`: what `providerOptions.google.cachedContent` takes. */
  name: string;
  /** The API's count of the cached tokens, when it reports one. */
  totalTokenCount?: number;
}

export async function createCachedContent(options: {
  settings: GeminiApiSettings;
  prefix: CachedPrefix;
  signal?: AbortSignal;
}): Promise<CreatedCache> {
  const { settings } = options;
  let response: Response;
  try {
    response = await settings.fetch(`${settings.baseURL}/cachedContents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': settings.apiKey },
      body: JSON.stringify(cachedContentBody(options.prefix)),
      ...(options.signal && { signal: options.signal }),
    });
  } catch (cause) {
    throw new GeminiCacheError({ operation: 'create', message: String(cause), cause });
  }
  const text = await response.text();
  if (!response.ok) {
    throw new GeminiCacheError({
      operation: 'create',
      statusCode: response.status,
      message: `HTTP ${response.status}: ${text.slice(0, 500)}`,
    });
  }
  let body: { name?: unknown; usageMetadata?: { totalTokenCount?: unknown } };
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new GeminiCacheError({
      operation: 'create',
      statusCode: response.status,
      message: `the answer is not JSON: ${text.slice(0, 200)}`,
      cause,
    });
  }
  if (typeof body?.name !== 'string' || body.name === '') {
    throw new GeminiCacheError({
      operation: 'create',
      statusCode: response.status,
      message: `the answer has no name: ${text.slice(0, 200)}`,
    });
  }
  const count = body.usageMetadata?.totalTokenCount;
  return { name: body.name, ...(typeof count === 'number' && { totalTokenCount: count }) };
}

export async function deleteCachedContent(options: {
  settings: GeminiApiSettings;
  name: string;
  signal?: AbortSignal;
}): Promise<void> {
  const { settings, name } = options;
  let response: Response;
  try {
    response = await settings.fetch(`${settings.baseURL}/${name}`, {
      method: 'DELETE',
      headers: { 'x-goog-api-key': settings.apiKey },
      ...(options.signal && { signal: options.signal }),
    });
  } catch (cause) {
    throw new GeminiCacheError({
      operation: 'delete',
      cacheName: name,
      message: String(cause),
      cause,
    });
  }
  // Already gone (expired): nothing left to pay for.
  if (!response.ok && response.status !== 404) {
    throw new GeminiCacheError({
      operation: 'delete',
      cacheName: name,
      statusCode: response.status,
      message: `HTTP ${response.status}: ${(await response.text()).slice(0, 500)}`,
    });
  }
  await response.body?.cancel();
}
