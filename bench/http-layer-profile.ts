/**
 * CPU of the HTTP layer of `POST /run`, in process: the same turns through `runner.run`
 * directly, through the app's request handler (`app.fetch`), and over loopback HTTP from a
 * keep-alive client in this process to `server.listen()` (the `node:http` fast path of
 * `POST /run`) and to the app on @hono/node-server (the path `/run` took before; the client's
 * own CPU is in both), on an in-memory store with a model that answers at once, the access log
 * on (to a sink) and a bearer token. `node --import tsx bench/http-layer-profile.ts [requests]
 * [only]` prints CPU ms per turn of each; `only` (`http`: app.fetch, `listen`, `hono`) runs just
 * that one, for a profile: `node --cpu-prof` and `node bench/profile-top.mjs <profile> 20`.
 */
import { Agent, request as httpRequest, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import pino from 'pino';
import { LlmAgent } from '../src/runtime/agents/llm-agent.js';
import { Runner } from '../src/runtime/turn/runner.js';
import { createServer } from '../src/server/create-server.js';
import { InMemorySessionService } from '../src/sessions/in-memory-session-service.js';
import { textResponse } from '../src/testing/scripted-model.js';

const requests = Number(process.argv[2] ?? 2000);
const warmUp = Math.min(300, requests);
const sessions = 16;
const token = 'bench-token-0123456789abcdef';

const model = {
  modelId: 'stub',
  contextWindowTokens: 1_000_000,
  generate: async () => textResponse('ok', { promptTokenCount: 900, candidatesTokenCount: 1 }),
};
const service = new InMemorySessionService();
const runner = new Runner({
  appName: 'bench',
  agent: new LlmAgent({ name: 'assistant', model, instruction: 'Answer briefly.' }),
  sessionService: service,
});
let logBytes = 0;
const sink = new Writable({
  write(chunk, _encoding, callback) {
    logBytes += chunk.length;
    callback();
  },
});
const server = createServer({
  runner,
  sessionService: service,
  auth: { grants: [{ token, userIds: ['user'] }] },
  logger: pino({ level: 'info' }, sink),
});

for (let index = 0; index < sessions; index++) {
  await service.createSession({ appName: 'bench', userId: 'user', sessionId: `r${index}` });
  await service.createSession({ appName: 'bench', userId: 'user', sessionId: `h${index}` });
}

async function direct(index: number): Promise<void> {
  for await (const _event of runner.run({
    userId: 'user',
    sessionId: `r${index % sessions}`,
    newMessage: { role: 'user', parts: [{ text: 'next' }] },
  })) {
    // drained
  }
}

async function viaHttp(index: number): Promise<void> {
  const body = JSON.stringify({
    appName: 'bench',
    userId: 'user',
    sessionId: `h${index % sessions}`,
    newMessage: { role: 'user', parts: [{ text: 'next' }] },
  });
  const response = await server.app.fetch(
    new Request('http://127.0.0.1/run', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    }),
  );
  if (response.status !== 200)
    throw new Error(`status ${response.status}: ${await response.text()}`);
  await response.text();
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function viaLoopback(port: () => number, prefix: string) {
  return (index: number) =>
    new Promise<void>((resolve, reject) => {
      const body = JSON.stringify({
        appName: 'bench',
        userId: 'user',
        sessionId: `${prefix}${index % sessions}`,
        newMessage: { role: 'user', parts: [{ text: 'next' }] },
      });
      const outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port: port(),
          path: '/run',
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${token}`,
            'content-length': String(Buffer.byteLength(body)),
          },
        },
        (incoming) => {
          let text = '';
          incoming.setEncoding('utf8');
          incoming.on('data', (chunk: string) => {
            text += chunk;
          });
          incoming.on('end', () =>
            incoming.statusCode === 200
              ? resolve()
              : reject(new Error(`status ${incoming.statusCode}: ${text}`)),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
}

for (let index = 0; index < sessions; index++) {
  await service.createSession({ appName: 'bench', userId: 'user', sessionId: `l${index}` });
  await service.createSession({ appName: 'bench', userId: 'user', sessionId: `o${index}` });
}

async function measure(turn: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < warmUp; index++) await turn(index);
  const started = process.cpuUsage();
  for (let index = 0; index < requests; index++) await turn(index);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / requests;
}

const only = process.argv[3];
const runnerMs = only ? 0 : await measure(direct);
const httpMs = !only || only === 'http' ? await measure(viaHttp) : 0;
let listenMs = 0;
let honoMs = 0;
// Hono first: `listen()`'s shutdown leaves the app draining.
if (!only || only === 'hono') {
  const hono = serve({ fetch: server.app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => hono.once('listening', resolve));
  const address = hono.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  honoMs = await measure(viaLoopback(() => port, 'o'));
  agent.destroy();
  hono.close();
}
if (!only || only === 'listen') {
  const listening = await server.listen({ port: 0, host: '127.0.0.1' });
  listenMs = await measure(viaLoopback(() => listening.port, 'l'));
  agent.destroy();
  await listening.shutdown({ timeoutMs: 1_000 });
}
console.log(
  JSON.stringify({
    requests,
    runnerCpuMs: Number(runnerMs.toFixed(3)),
    httpCpuMs: Number(httpMs.toFixed(3)),
    httpLayerMs: Number((httpMs - runnerMs).toFixed(3)),
    listenCpuMs: Number(listenMs.toFixed(3)),
    honoListenCpuMs: Number(honoMs.toFixed(3)),
    logBytes,
  }),
);
