/**
 * `POST /run` answers alike on its `node:http` fast path (`server.listen()`) and through Hono
 * (the app on @hono/node-server, the transport every route had before): the same requests, the
 * same status, headers and body (generated ids and times aside), the same log lines. A counter
 * on `app.fetch` shows which path served each request.
 */
import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../models/errors.js';
import type { Model, ModelRequest } from '../models/types.js';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { Runner } from '../runtime/turn/runner.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { textResponse } from '../testing/scripted-model.js';
import { createServer, type OrreryServer } from './create-server.js';
import type { ListeningServer } from './listen.js';

const APP = 'demo';
const TOKEN = 'alice-token-0123456789abcdef';
const OTHER = 'bob-token-0123456789abcdef00';
const MAX_BODY = 2048;

/** Answers `echo: <text>`; the text `fail` is a model error (a 502 with the stored events). */
const model: Model = {
  modelId: 'echo',
  generate: async (request: ModelRequest) => {
    const last = request.contents.at(-1)?.parts?.[0];
    const text = last && 'text' in last ? String(last.text) : '';
    if (text === 'fail') {
      throw new ModelError({ kind: 'fatal', statusCode: 400, message: 'the upstream refused' });
    }
    return textResponse(`echo: ${text}`);
  },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Paths {
  server: OrreryServer;
  service: InMemorySessionService;
  fast: ListeningServer;
  hono: Server;
  honoPort: number;
  /** Requests `app.fetch` (Hono) served. */
  honoCalls(): number;
  logs: Array<Record<string, unknown>>;
}

let paths: Paths | undefined;
afterEach(async () => {
  if (!paths) return;
  paths.hono.close();
  paths.hono.closeAllConnections();
  await paths.fast.shutdown({ timeoutMs: 1_000 });
  paths = undefined;
});

async function start(): Promise<Paths> {
  const service = new InMemorySessionService();
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      callback();
    },
  });
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({ name: 'assistant', model }),
    sessionService: service,
    compaction: null,
    logger: false,
    background: true,
  });
  const server = createServer({
    runner,
    sessionService: service,
    logger: pino({ level: 'info' }, sink),
    maxBodyBytes: MAX_BODY,
    auth: {
      grants: [
        { token: TOKEN, userIds: ['alice'] },
        { token: OTHER, userIds: ['bob'] },
      ],
    },
  });
  let honoCalls = 0;
  const fetch = server.app.fetch;
  server.app.fetch = (...args: Parameters<typeof fetch>) => {
    honoCalls++;
    return fetch(...args);
  };
  const fast = await server.listen({ port: 0, host: '127.0.0.1' });
  const hono = serve({ fetch: server.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await once(hono, 'listening');
  const address = hono.address();
  const honoPort = typeof address === 'object' && address ? address.port : 0;
  for (const userId of ['alice', 'bob']) {
    for (const sessionId of ['fast', 'hono']) {
      await service.createSession({ appName: APP, userId, sessionId });
    }
  }
  return { server, service, fast, hono, honoPort, honoCalls: () => honoCalls, logs };
}

function send(
  port: number,
  options: { headers?: Record<string, string>; body?: string; chunked?: boolean },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, path: '/run', method: 'POST', headers: options.headers },
      (incoming) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          body += chunk;
        });
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }),
        );
      },
    );
    outgoing.on('error', reject);
    if (options.body === undefined) outgoing.end();
    else if (options.chunked) {
      // No content-length: Node sends it chunked, in two writes.
      const half = Math.floor(options.body.length / 2);
      outgoing.write(options.body.slice(0, half));
      outgoing.end(options.body.slice(half));
    } else outgoing.end(options.body);
  });
}

function runBody(fields: Record<string, unknown>): string {
  return JSON.stringify({
    appName: APP,
    userId: 'alice',
    newMessage: { role: 'user', parts: [{ text: 'hello' }] },
    ...fields,
  });
}

/** An answer with what differs between two runs of one request (ids, times, lengths) masked. */
function normalized(answer: Answer): unknown {
  const { date: _date, 'content-length': length, ...headers } = answer.headers;
  expect(Number(length ?? 0)).toBe(Buffer.byteLength(answer.body));
  return {
    status: answer.status,
    headers,
    body: answer.body
      .replace(/"(id|invocationId)":"[^"]+"/g, '"$1":"<id>"')
      .replace(/"timestamp":[\d.]+/g, '"timestamp":0'),
  };
}

/** A request's log lines; of an error's stack, its first line (the frames are each path's). */
function linesOf(logs: Array<Record<string, unknown>>, requestId: string): unknown[] {
  return logs
    .filter((line) => line.requestId === requestId)
    .map(({ time: _time, durationMs: _duration, ...line }) => {
      const error = line.error as { stack?: string } | undefined;
      if (error?.stack) line.error = { ...error, stack: error.stack.split('\n')[0] };
      return line;
    });
}

interface Case {
  name: string;
  headers?: Record<string, string>;
  /** The session each path runs on is its own (`fast`, `hono`): the same seq on both. */
  body?: (sessionId: string) => string;
  chunked?: boolean;
  status: number;
}

const json = { 'content-type': 'application/json' };
const bearer = { ...json, authorization: `Bearer ${TOKEN}` };

const CASES: Case[] = [
  { name: 'success', headers: bearer, body: (sessionId) => runBody({ sessionId }), status: 200 },
  {
    name: 'a streamed body',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId }),
    chunked: true,
    status: 200,
  },
  {
    name: 'a model failure',
    headers: bearer,
    body: (sessionId) =>
      runBody({ sessionId, newMessage: { role: 'user', parts: [{ text: 'fail' }] } }),
    status: 502,
  },
  { name: 'bad JSON', headers: bearer, body: () => '{"appName":', status: 400 },
  { name: 'an empty body', headers: bearer, body: () => '', status: 400 },
  {
    name: 'a wrong field',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId, newMessage: { parts: [] } }),
    status: 400,
  },
  {
    name: 'a state delta',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId, stateDelta: { a: 1 } }),
    status: 400,
  },
  {
    name: 'too large (content-length)',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId, pad: 'x'.repeat(MAX_BODY) }),
    status: 413,
  },
  {
    name: 'too large (streamed)',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId, pad: 'x'.repeat(MAX_BODY) }),
    chunked: true,
    status: 413,
  },
  { name: 'no token', headers: json, body: (sessionId) => runBody({ sessionId }), status: 401 },
  {
    name: 'a malformed token',
    headers: { ...json, authorization: 'Basic abc' },
    body: (sessionId) => runBody({ sessionId }),
    status: 401,
  },
  {
    name: 'an unknown token',
    headers: { ...json, authorization: 'Bearer not-a-token-of-this-server' },
    body: (sessionId) => runBody({ sessionId }),
    status: 401,
  },
  {
    name: 'an unknown app',
    headers: bearer,
    body: (sessionId) => runBody({ sessionId, appName: 'elsewhere' }),
    status: 404,
  },
  {
    name: "another user's session",
    headers: bearer,
    // Bob's session of the same name on both paths: the 404 names it.
    body: () => runBody({ sessionId: 'fast', userId: 'bob' }),
    status: 404,
  },
  {
    name: 'an unknown session',
    headers: bearer,
    body: () => runBody({ sessionId: 'ghost' }),
    status: 404,
  },
];

describe('POST /run: the node:http fast path answers as Hono does', () => {
  it.each(CASES)('$name', async (testCase) => {
    paths = await start();
    const answers: Record<'fast' | 'hono', Answer> = {} as never;
    const lines: Record<'fast' | 'hono', unknown[]> = {} as never;
    for (const path of ['fast', 'hono'] as const) {
      const honoBefore = paths.honoCalls();
      const requestId = `case-${CASES.indexOf(testCase)}`;
      const port = path === 'fast' ? paths.fast.port : paths.honoPort;
      answers[path] = await send(port, {
        headers: { ...testCase.headers, 'x-request-id': requestId },
        body: testCase.body?.(path),
        chunked: testCase.chunked,
      });
      expect(paths.honoCalls() - honoBefore).toBe(path === 'fast' ? 0 : 1);
      lines[path] = linesOf(paths.logs, requestId);
      paths.logs.length = 0;
    }
    expect(answers.fast.status).toBe(testCase.status);
    expect(normalized(answers.fast)).toEqual(normalized(answers.hono));
    expect(lines.fast).toEqual(lines.hono);
    expect(lines.fast).toContainEqual(
      expect.objectContaining({ msgType: 'access', status: testCase.status, route: '/run' }),
    );
    // Both runs stored the same events on their own session.
    const stored = async (sessionId: string) =>
      (await paths!.service.listEvents({ appName: APP, userId: 'alice', sessionId })).events.map(
        (event) => [event.seq, event.author, event.content?.parts?.[0]],
      );
    expect(await stored('fast')).toEqual(await stored('hono'));
  });

  it('counts both paths alike in /metrics', async () => {
    paths = await start();
    const counts = async () => {
      const text = await paths!.server.runner.metrics.registry.metrics();
      return text.split('\n').filter((line) => line.startsWith('orrery_http_requests_total{'));
    };
    for (const testCase of CASES.slice(3)) {
      await send(paths.fast.port, {
        headers: testCase.headers,
        body: testCase.body?.('fast'),
        chunked: testCase.chunked,
      });
    }
    const fast = await counts();
    for (const testCase of CASES.slice(3)) {
      await send(paths.honoPort, {
        headers: testCase.headers,
        body: testCase.body?.('hono'),
        chunked: testCase.chunked,
      });
    }
    const both = await counts();
    // Every line's count doubled: the Hono requests were counted as the fast ones were.
    expect(both).toEqual(
      fast.map((line) => line.replace(/ (\d+)$/, (_m, n) => ` ${Number(n) * 2}`)),
    );
    expect(fast.join('\n')).toContain('route="/run",status="413"} 2');
  });

  it('while draining: a 503 problem with connection: close on both', async () => {
    paths = await start();
    const servers = { fast: paths.fast.server, hono: paths.hono };
    const ports = { fast: paths.fast.port, hono: paths.honoPort };
    const body = runBody({ sessionId: 'fast' });
    const honoBefore = paths.honoCalls();
    // Each request's headers go out first; its body once the server is draining.
    const sockets = await Promise.all(
      (['fast', 'hono'] as const).map(async (path) => {
        const socket = connect({ host: '127.0.0.1', port: ports[path] });
        await once(socket, 'connect');
        const received = once(servers[path], 'request');
        socket.write(
          `POST /run HTTP/1.1\r\nhost: 127.0.0.1:${ports[path]}\r\ncontent-type: application/json\r\nauthorization: Bearer ${TOKEN}\r\nx-request-id: draining\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`,
        );
        await received;
        return socket;
      }),
    );
    const shutdown = paths.fast.shutdown({ timeoutMs: 1_000 });
    const answers = await Promise.all(
      sockets.map(async (socket) => {
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          text += chunk;
        });
        socket.write(body);
        await once(socket, 'close');
        return text;
      }),
    );
    await shutdown;
    // One of the two went through Hono: the other was the fast path's.
    expect(paths.honoCalls() - honoBefore).toBe(1);
    const [fast, hono] = answers.map((text) => {
      const [head = '', payload = ''] = text.split('\r\n\r\n');
      const headers = head
        .split('\r\n')
        .slice(1)
        .map((line) => line.toLowerCase())
        .filter((line) => !line.startsWith('date:'))
        .sort();
      return { status: head.split('\r\n')[0], headers, payload };
    });
    expect(fast?.status).toBe('HTTP/1.1 503 Service Unavailable');
    expect(fast?.headers).toContain('connection: close');
    expect(fast).toEqual(hono);
    expect(JSON.parse(fast?.payload ?? '')).toMatchObject({
      type: 'urn:orrery:problem:shutting-down',
      requestId: 'draining',
    });
  });
});
