/**
 * A fake OpenAI upstream on 127.0.0.1 that records every request it receives (headers and the
 * parsed body with its byte size) and answers with what the test's `respond` returns.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  headers: IncomingHttpHeaders;
  /** The request's path and query, e.g. `/v1beta/models/gemini-2.5-flash:generateContent`. */
  url: string;
  bytes: number;
  body: {
    messages: Array<Record<string, unknown>>;
    contents: Array<Record<string, unknown>>;
    stream?: boolean;
  } & Record<string, unknown>;
}

/** `named`: Anthropic's `event:` lines; `bare`: no `[DONE]` at the end (Gemini). */
export type FakeAnswer =
  | { status?: number; json: unknown }
  | { sse: unknown[]; named?: boolean; bare?: boolean };

export interface FakeOpenAi {
  url: string;
  requests: RecordedRequest[];
  respond: (request: RecordedRequest) => FakeAnswer;
  close(): Promise<void>;
}

/** A plain completion answering `text` (prompt tokens: the body's bytes / 4, as a provider might count). */
export function completion(
  text: string,
  request: RecordedRequest,
  toolCalls?: unknown[],
): FakeAnswer {
  return {
    json: {
      id: `chatcmpl-${request.bytes}`,
      object: 'chat.completion',
      created: 1,
      model: String(request.body.model),
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls ? null : text,
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      usage: {
        prompt_tokens: Math.ceil(request.bytes / 4),
        completion_tokens: 5,
        total_tokens: Math.ceil(request.bytes / 4) + 5,
      },
    },
  };
}

/** The same answer as Chat Completions chunks (text in two pieces, calls in two deltas). */
export function chunks(
  text: string,
  request: RecordedRequest,
  toolCalls?: Array<{ id: string; name: string; arguments: string }>,
): FakeAnswer {
  const base = {
    id: 'chatcmpl-s',
    object: 'chat.completion.chunk',
    created: 1,
    model: String(request.body.model),
  };
  const events: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant' } }] }];
  if (toolCalls) {
    toolCalls.forEach((call, index) => {
      events.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            },
          },
        ],
      });
      events.push({
        ...base,
        choices: [
          { index: 0, delta: { tool_calls: [{ index, function: { arguments: call.arguments } }] } },
        ],
      });
    });
  } else {
    const half = Math.floor(text.length / 2);
    events.push({ ...base, choices: [{ index: 0, delta: { content: text.slice(0, half) } }] });
    events.push({ ...base, choices: [{ index: 0, delta: { content: text.slice(half) } }] });
  }
  events.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
  });
  events.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: Math.ceil(request.bytes / 4),
      completion_tokens: 5,
      total_tokens: Math.ceil(request.bytes / 4) + 5,
    },
  });
  return { sse: events };
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const fake: Omit<FakeOpenAi, 'url' | 'close'> = {
    requests: [],
    respond: (request) => completion('ok', request),
  };
  const server: Server = createServer((incoming, outgoing) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const raw = Buffer.concat(parts);
      const request: RecordedRequest = {
        headers: incoming.headers,
        url: incoming.url ?? '',
        bytes: raw.length,
        body: JSON.parse(raw.toString('utf8')),
      };
      fake.requests.push(request);
      const answer = fake.respond(request);
      if ('sse' in answer) {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of answer.sse) {
          // Anthropic names each event (`event: message_start`); OpenAI ends with [DONE].
          const name = answer.named ? `event: ${(event as { type: string }).type}\n` : '';
          outgoing.write(`${name}data: ${JSON.stringify(event)}\n\n`);
        }
        outgoing.end(answer.named || answer.bare ? '' : 'data: [DONE]\n\n');
        return;
      }
      outgoing.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as FakeOpenAi;
}
