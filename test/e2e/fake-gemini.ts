/**
 * A local stand-in for Gemini's `generateContent` endpoint with its real request-size limit:
 * any body over `maxBodyBytes` gets the 400 INVALID_ARGUMENT Gemini sends for it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  bytes: number;
  status: number;
  /** `contents` of an accepted request (rejected bodies are not parsed). */
  contentCount?: number;
}

export interface FakeGemini {
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeGemini(options: {
  maxBodyBytes: number;
  /** The answer to the n-th accepted request (0-based): a Gemini `Content`. */
  answer: (acceptedIndex: number) => Record<string, unknown>;
}): Promise<FakeGemini> {
  const requests: RecordedRequest[] = [];
  let accepted = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      // Past the limit the body is not kept (Gemini does not read it either).
      if (bytes <= options.maxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => {
      response.setHeader('content-type', 'application/json');
      if (!request.url?.endsWith(':generateContent')) {
        response.statusCode = 404;
        response.end(
          JSON.stringify({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } }),
        );
        return;
      }
      if (bytes > options.maxBodyBytes) {
        requests.push({ bytes, status: 400 });
        response.statusCode = 400;
        response.end(
          JSON.stringify({
            error: {
              code: 400,
              message: `Request payload size exceeds the limit: ${options.maxBodyBytes} bytes.`,
              status: 'INVALID_ARGUMENT',
            },
          }),
        );
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { contents: unknown[] };
      requests.push({ bytes, status: 200, contentCount: body.contents.length });
      const content = options.answer(accepted++);
      response.statusCode = 200;
      response.end(
        JSON.stringify({
          candidates: [{ content, finishReason: 'STOP', index: 0 }],
          usageMetadata: {
            promptTokenCount: Math.ceil(bytes / 4),
            candidatesTokenCount: 12,
            totalTokenCount: Math.ceil(bytes / 4) + 12,
          },
          modelVersion: 'gemini-2.5-flash',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1beta`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}
