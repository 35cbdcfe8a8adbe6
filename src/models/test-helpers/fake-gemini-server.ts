/**
 * A local Gemini API on 127.0.0.1 that records each request: `cachedContents` create and
 * delete, and `generateContent`, which refuses `systemInstruction`, `tools` or `toolConfig`
 * beside `cachedContent` as the real API does, and reports the cache's tokens as
 * `cachedContentTokenCount`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  apiKey: string | undefined;
  body: Record<string, unknown> | undefined;
}

export interface FakeGeminiServer {
  baseURL: string;
  requests: RecordedRequest[];
  /** Requests to `path` ending with this text, e.g. `/cachedContents` or `:generateContent`. */
  to(method: string, pathEnd: string): RecordedRequest[];
  /** Names of the caches alive (created, not deleted). */
  alive: Set<string>;
  /** The next `cachedContents` creations answer with this status. */
  failCreate?: number;
  /** The next `generateContent` with a cache answers 404 (the cache expired early). */
  expireCaches?: boolean;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

function answer(text: string, promptTokens: number, cachedTokens: number) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: promptTokens,
      candidatesTokenCount: 5,
      totalTokenCount: promptTokens + 5,
      ...(cachedTokens > 0 && { cachedContentTokenCount: cachedTokens }),
    },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'fake-response',
  };
}

export async function startFakeGeminiServer(): Promise<FakeGeminiServer> {
  const requests: RecordedRequest[] = [];
  const alive = new Set<string>();
  const cacheTokens = new Map<string, number>();
  let created = 0;
  const state: Partial<FakeGeminiServer> = {};
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const method = request.method ?? 'GET';
      const apiKey = request.headers['x-goog-api-key'] as string | undefined;
      requests.push({ method, path, apiKey, body });
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
        response.end(JSON.stringify(value));
      };
      const error = (status: number, message: string) =>
        send(status, { error: { code: status, message, status: 'INVALID_ARGUMENT' } });
      if (method === 'POST' && path.endsWith('/cachedContents')) {
        if (state.failCreate !== undefined) {
          return error(state.failCreate, 'Cached content is too small. total_token_count=10');
        }
        created++;
        const name = `cachedContents/fake-${created}`;
        const tokens = Math.ceil(JSON.stringify(body).length / 4);
        alive.add(name);
        cacheTokens.set(name, tokens);
        return send(200, {
          name,
          model: body?.model,
          usageMetadata: { totalTokenCount: tokens },
          expireTime: '2030-01-01T00:00:00Z',
        });
      }
      if (method === 'DELETE' && path.includes('/cachedContents/')) {
        const name = path.slice(path.indexOf('cachedContents/'));
        if (!alive.delete(name)) return error(404, `CachedContent not found: ${name}`);
        return send(200, {});
      }
      if (method === 'POST' && path.endsWith(':generateContent')) {
        const cached = body?.cachedContent as string | undefined;
        if (cached !== undefined) {
          if (body?.systemInstruction || body?.tools || body?.toolConfig) {
            return error(
              400,
              'CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.',
            );
          }
          if (state.expireCaches || !alive.has(cached)) {
            return error(404, `CachedContent not found (or permission denied): ${cached}`);
          }
        }
        const promptTokens = Math.ceil(JSON.stringify(body).length / 4);
        const cachedTokens = cached === undefined ? 0 : (cacheTokens.get(cached) ?? 0);
        return send(200, answer('ok', promptTokens + cachedTokens, cachedTokens));
      }
      return error(404, `no route ${method} ${path}`);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseURL: `http://127.0.0.1:${port}/v1beta`,
    requests,
    alive,
    to: (method: string, pathEnd: string) =>
      requests.filter((request) => request.method === method && request.path.endsWith(pathEnd)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  }) as FakeGeminiServer;
}
