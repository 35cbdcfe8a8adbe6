/**
 * A real listening server on 127.0.0.1 (a random port) over an in-memory store and an LlmAgent
 * on a `ScriptedModel`, for the route tests. Log lines are kept in `logs`.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { z } from 'zod';
import { LlmAgent } from '../../runtime/agents/llm-agent.js';
import { FunctionTool } from '../../runtime/tools/function-tool.js';
import { Runner } from '../../runtime/turn/runner.js';
import { InMemorySessionService } from '../../sessions/in-memory-session-service.js';
import type { SessionService } from '../../sessions/session-service.js';
import { ScriptedModel, type ScriptStep } from '../../testing/scripted-model.js';
import { type CreateServerOptions, createServer, type OrreryServer } from '../create-server.js';
import type { ListeningServer } from '../listen.js';

export const APP = 'demo';
export const TOKEN_ALICE = 'alice-token-0123456789abcdef';
export const TOKEN_BOB = 'bob-token-0123456789abcdef00';

/** The tests' tokens: alice's acts as alice, bob's as bob and carol. */
export function testAuth(): CreateServerOptions['auth'] {
  return {
    grants: [
      { token: TOKEN_ALICE, userIds: ['alice'] },
      { token: TOKEN_BOB, userIds: ['bob', 'carol'] },
    ],
  };
}

export interface TestServer {
  url: string;
  model: ScriptedModel;
  service: SessionService;
  server: OrreryServer;
  listening: ListeningServer;
  /** Every log line, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The raw log text (to check nothing secret was written). */
  logText(): string;
  close(): Promise<void>;
}

export async function startTestServer(
  options: {
    script?: ScriptStep[];
    service?: SessionService;
    tokens?: boolean;
    maxBodyBytes?: number;
    runnerOptions?: { background?: boolean };
    serverOptions?: Partial<CreateServerOptions>;
  } = {},
): Promise<TestServer> {
  const model = new ScriptedModel({ script: options.script ?? [] });
  const service = options.service ?? new InMemorySessionService();
  const logs: Array<Record<string, unknown>> = [];
  let raw = '';
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      raw += String(chunk);
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      callback();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({
      name: 'assistant',
      model,
      instruction: 'Answer briefly.',
      tools: [
        new FunctionTool({
          name: 'lookup',
          description: 'Looks a word up.',
          parameters: z.object({ word: z.string() }),
          execute: async ({ word }) => ({ definition: `${word}: a word` }),
        }),
      ],
    }),
    sessionService: service,
    compaction: null,
    logger: false,
    background: options.runnerOptions?.background ?? true,
  });
  const server = createServer({
    runner,
    sessionService: service,
    logger,
    maxBodyBytes: options.maxBodyBytes,
    auth: options.tokens ? testAuth() : undefined,
    ...options.serverOptions,
  });
  const listening = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: listening.url,
    model,
    service,
    server,
    listening,
    logs,
    logText: () => raw,
    close: async () => {
      await listening.shutdown({ timeoutMs: 5_000 });
    },
  };
}

/** Reads a whole SSE body into its messages, checking the framing as it goes. */
export function parseSse(text: string): unknown[] {
  if (text === '') return [];
  if (!text.endsWith('\n\n'))
    throw new Error(
      `the stream does not end with a blank line: ${JSON.stringify(text.slice(-40))}`,
    );
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((message) => {
      const lines = message.split('\n');
      if (lines.length !== 1 || !lines[0]?.startsWith('data: ')) {
        throw new Error(`not one data line: ${JSON.stringify(message)}`);
      }
      return JSON.parse(lines[0].slice('data: '.length));
    });
}
