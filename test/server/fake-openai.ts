/**
 * A local OpenAI-compatible chat-completions server for `orrery serve` processes: it answers
 * "echo: <last user text>", and can hold answers until the test releases them (to keep a run
 * in flight), reporting each request as it arrives.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOpenAi {
  baseUrl: string;
  /** Requests received so far (their last user message). */
  requests: string[];
  /** Hold every answer until `release()` (or until the client goes away). */
  hold(): void;
  release(): void;
  /** Resolves when the n-th request (1-based) has arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Requests whose client closed the connection before the answer. */
  abandoned: number;
  close(): Promise<void>;
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const requests: string[] = [];
  let held = false;
  let waiting: Array<() => void> = [];
  const arrivals: Array<{ count: number; resolve: () => void }> = [];
  const state = { abandoned: 0 };

  const answer = (response: ServerResponse, model: string, text: string, promptTokens: number) => {
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 1,
        model,
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
        ],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: 5,
          total_tokens: promptTokens + 5,
        },
      }),
    );
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as {
        model: string;
        messages: Array<{ role: string; content: unknown }>;
      };
      const last = [...parsed.messages].reverse().find((message) => message.role === 'user');
      const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
      requests.push(text);
      for (const arrival of arrivals.filter((item) => requests.length >= item.count)) {
        arrivals.splice(arrivals.indexOf(arrival), 1);
        arrival.resolve();
      }
      const reply = () => {
        if (!response.destroyed)
          answer(response, parsed.model, `echo: ${text}`, Math.ceil(body.length / 4));
      };
      if (!held) return reply();
      response.on('close', () => {
        if (!response.writableEnded) state.abandoned++;
      });
      waiting.push(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      const pending = waiting;
      waiting = [];
      for (const reply of pending) reply();
    },
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => arrivals.push({ count, resolve })),
    get abandoned() {
      return state.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
