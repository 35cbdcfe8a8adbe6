/**
 * `orrery gateway` as a real process (from source) in front of a fake OpenAI upstream: the
 * `openai` SDK talks to it, every message lands in the store, SIGTERM stops it with exit 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/cli/store.js';
import {
  completion,
  type FakeOpenAi,
  startFakeOpenAi,
} from '../../src/gateway/test-helpers/fake-openai.js';
import { cli, tempDir } from './in-process.js';
import { root } from './run-cli.js';

const entry = join(root, 'src', 'cli', 'entry.ts');
const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const STARTUP_LINE = /^orrery gateway: (http:\/\/\S+)\/openai\/v1 -> /m;

let child: ChildProcess | undefined;
let upstream: FakeOpenAi | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
  await upstream?.close();
  upstream = undefined;
});

function gatewayEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('ORRERY_')) env[key] = value;
  }
  return { ...env, ...extra };
}

describe('orrery gateway', () => {
  it('forwards through the fake upstream, stores every message, and stops on SIGTERM', async () => {
    const fake = await startFakeOpenAi();
    upstream = fake;
    fake.respond = (request) => completion(`answer ${fake.requests.length}`, request);
    const cwd = tempDir();
    const db = join(cwd, 'store.db');
    const started = spawn(
      process.execPath,
      ['--import', tsxLoader, entry, 'gateway', '--port', '0', '--db', db],
      {
        cwd,
        env: gatewayEnv({
          ORRERY_GATEWAY_OPENAI_BASE_URL: fake.url,
          ORRERY_COMPACTION_TOKEN_THRESHOLD: '8000',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = started;
    let stderr = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.once('close', (code, signal) => resolve({ code, signal })),
    );
    const [, url] = await new Promise<RegExpExecArray>((resolve, reject) => {
      started.stderr?.on('data', (chunk) => {
        stderr += String(chunk);
        const match = STARTUP_LINE.exec(stderr);
        if (match) resolve(match);
      });
      void exited.then(({ code }) =>
        reject(new Error(`orrery gateway exited (${code}) before its startup line: ${stderr}`)),
      );
    });
    expect(stderr).toContain('compaction at 8000 tokens');
    const openai = new OpenAI({
      apiKey: 'sk-cli-test-key',
      baseURL: `${url}/openai/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-orrery-session': 'cli' },
    });
    const history: ChatCompletionMessageParam[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      history.push({ role: 'user', content: `question ${turn}` });
      const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
      expect(answer.choices[0]?.message.content).toBe(`answer ${turn}`);
      history.push(answer.choices[0]!.message);
    }
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-cli-test-key');
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain(
      'orrery_gateway_upstream_requests_total{provider="openai",status="200"} 3',
    );

    started.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    const store = await openStore({ db, appName: 'gateway', userId: 'anonymous' });
    try {
      const page = await store.listEvents({
        appName: 'gateway',
        userId: 'anonymous',
        sessionId: 'cli',
      });
      expect(page.events.map((event) => event.content?.parts[0]?.text)).toEqual(
        history.map((message) => message.content),
      );
    } finally {
      await store.close?.();
    }
    // The CLI reads a gateway session like any other.
    const view = await cli(['view', 'cli', '--db', db, '--app', 'gateway', '--user', 'anonymous']);
    expect(view.code).toBe(0);
    expect(view.stdout).toContain('question 3');
  }, 120_000);

  it('refuses a bad upstream URL with exit 2 naming the variable', async () => {
    const result = await cli(['gateway', '--port', '0', '--db', join(tempDir(), 's.db')], {
      env: { ORRERY_GATEWAY_OPENAI_BASE_URL: 'ftp://example.com' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ORRERY_GATEWAY_OPENAI_BASE_URL');
  });

  it.each([
    ['ORRERY_GATEWAY_GEMINI_BASE_URL', 'not a url'],
    ['ORRERY_GATEWAY_REDACT', 'maybe'],
    ['ORRERY_GATEWAY_RECALL', 'sometimes'],
  ])('refuses %s=%s with exit 2 naming the variable', async (variable, value) => {
    const result = await cli(['gateway', '--port', '0', '--db', join(tempDir(), 's.db')], {
      env: { [variable]: value },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(variable);
  });
});
