/**
 * Serves recorded provider HTTP exchanges (`src/models/fixtures/<provider>/<name>.json`) to
 * the real AI SDK providers through an injected `fetch`, and records what they sent.
 */
import { readFileSync } from 'node:fs';

export interface Fixture {
  description?: string;
  /** What the provider must send: exact URL and method, a subset of headers and body. */
  request?: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
  };
  response: {
    status: number;
    headers?: Record<string, string>;
    /** A JSON body. */
    body?: unknown;
    /** A text body, line by line as on the wire (e.g. Server-Sent Events), joined with `\n`. */
    bodyLines?: string[];
  };
}

export interface RecordedRequest {
  url: string;
  method: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: unknown;
}

export function loadFixture(provider: string, name: string): Fixture {
  const url = new URL(`../fixtures/${provider}/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Fixture;
}

/** A fetch that answers every call with the fixtures' responses, in order. */
export function fixtureFetch(...fixtures: Fixture[]): {
  fetch: typeof globalThis.fetch;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  const queue = [...fixtures];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    init?.signal?.throwIfAborted();
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const rawBody = typeof init?.body === 'string' ? init.body : undefined;
    requests.push({
      url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      method: init?.method ?? 'GET',
      headers,
      body: rawBody === undefined ? undefined : JSON.parse(rawBody),
    });
    const fixture = queue.shift();
    if (fixture === undefined) throw new Error(`unexpected request #${requests.length}`);
    const { bodyLines } = fixture.response;
    const body =
      bodyLines === undefined ? JSON.stringify(fixture.response.body) : `${bodyLines.join('\n')}\n`;
    return new Response(body, {
      status: fixture.response.status,
      headers: { 'content-type': 'application/json', ...fixture.response.headers },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}
