/**
 * CPU of the HTTP layer of `POST /run`, in process: the same turns through `runner.run`
 * directly and through the app's request handler (`app.fetch`), on an in-memory store with a
 * model that answers at once, the access log on (to a sink) and a bearer token.
 * `node --import tsx bench/http-layer-profile.ts [requests]` prints CPU ms per turn of each;
 * run it under `node --cpu-prof` and `node bench/profile-top.mjs <profile> 20` for where it goes.
 */
import { Writable } from 'node:stream';
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

async function measure(turn: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < warmUp; index++) await turn(index);
  const started = process.cpuUsage();
  for (let index = 0; index < requests; index++) await turn(index);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / requests;
}

// `http`: only the requests through the app (for a profile of the HTTP layer alone).
const runnerMs = process.argv[3] === 'http' ? 0 : await measure(direct);
const httpMs = await measure(viaHttp);
console.log(
  JSON.stringify({
    requests,
    runnerCpuMs: Number(runnerMs.toFixed(3)),
    httpCpuMs: Number(httpMs.toFixed(3)),
    httpLayerMs: Number((httpMs - runnerMs).toFixed(3)),
    logBytes,
  }),
);
