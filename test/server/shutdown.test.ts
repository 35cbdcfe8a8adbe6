/**
 * `orrery serve` as a real process (the built CLI): SIGTERM mid-run lets the run finish within
 * the deadline and exits 0; past the deadline the run is stopped, its stored events kept, and
 * the process still exits 0. Bad settings exit 2 naming the flag or variable. Needs `npm run
 * build`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSessionService } from '../../src/sessions/sqlite/index.js';
import { type FakeOpenAi, startFakeOpenAi } from './fake-openai.js';
import { type ServeProcess, startServe } from './serve-process.js';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(async () => {
  await fake.close();
});

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'orrery-serve-'));
}

function modelEnv(): Record<string, string> {
  return {
    ORRERY_MODEL: 'openai-compatible:fake',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    ORRERY_CONTEXT_COMPACTION: 'false',
  };
}

async function startRun(server: ServeProcess, text: string): Promise<Response> {
  const create = await fetch(`${server.url}/apps/orrery/users/u/sessions/s`, { method: 'POST' });
  expect(create.status).toBe(200);
  return fetch(`${server.url}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({
      appName: 'orrery',
      userId: 'u',
      sessionId: 's',
      newMessage: { role: 'user', parts: [{ text }] },
    }),
  });
}

async function storedAuthors(db: string): Promise<Array<[number, string]>> {
  const service = new SqliteSessionService({ path: db });
  try {
    const page = await service.listEvents({ appName: 'orrery', userId: 'u', sessionId: 's' });
    return page.events.map((event) => [event.seq, event.author]);
  } finally {
    await service.close();
  }
}

describe('orrery serve: SIGTERM', () => {
  it('lets a run in flight finish within the deadline, refuses new connections, exits 0', async () => {
    const cwd = scratch();
    const db = join(cwd, 'orrery.db');
    const server = await startServe({
      args: ['--db', db, '--shutdown-timeout', '60000'],
      env: modelEnv(),
      cwd,
    });
    fake.hold();
    const requestsBefore = fake.requests.length;
    const response = startRun(server, 'slow question');
    await fake.waitForRequests(requestsBefore + 1);

    server.child.kill('SIGTERM');
    await server.waitForStderr(/SIGTERM: finishing runs in flight/);
    // No new connection is accepted while the run finishes.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();

    fake.release();
    const answered = await response;
    expect(answered.status).toBe(200);
    const events = (await answered.json()) as Array<{
      author: string;
      content: { parts: Array<{ text: string }> };
    }>;
    expect(events.map((event) => [event.author, event.content.parts[0]?.text])).toEqual([
      ['assistant', 'echo: slow question'],
    ]);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toMatch(/stopped \(1 run\(s\) finished, 0 stopped at the deadline\)/);
    expect(await storedAuthors(db)).toEqual([
      [1, 'user'],
      [2, 'assistant'],
    ]);
  });

  it('past the deadline stops the run (503 problem), keeps what it stored, exits 0', async () => {
    const cwd = scratch();
    const db = join(cwd, 'orrery.db');
    const server = await startServe({
      args: ['--db', db, '--shutdown-timeout', '200'],
      env: modelEnv(),
      cwd,
    });
    fake.hold();
    const requestsBefore = fake.requests.length;
    const response = startRun(server, 'never answered');
    await fake.waitForRequests(requestsBefore + 1);

    server.child.kill('SIGTERM');
    const answered = await response;
    expect(answered.status).toBe(503);
    expect(answered.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await answered.json()) as { type: string; events?: unknown[] };
    expect(problem.type).toBe('urn:orrery:problem:shutting-down');
    // Nothing but the user's message was stored, and that one is not sent back.
    expect(problem.events).toBeUndefined();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toMatch(/0 run\(s\) finished, 1 stopped at the deadline/);
    expect(await storedAuthors(db)).toEqual([[1, 'user']]);
    fake.release();
  });
});

describe('orrery serve: settings checked at start', () => {
  it.each([
    [
      ['--host', '0.0.0.0'],
      {},
      /CliUsageError: --host: refusing to listen on 0\.0\.0\.0 without tokens/,
    ],
    [
      [],
      { ORRERY_SERVE_MAX_BODY_BYTES: 'big' },
      /ORRERY_SERVE_MAX_BODY_BYTES: expected an integer from 1024 to \d+, got "big"/,
    ],
    [['--tokens-file', 'missing.txt'], {}, /--tokens-file: no file at missing\.txt/],
  ] as const)('%j %j exits 2 naming the setting', async (args, env, message) => {
    const cwd = scratch();
    const result = startServe({ args: [...args], env: { ...modelEnv(), ...env }, cwd });
    // A server that started by mistake is stopped, not left behind.
    void result.then((server) => server.child.kill('SIGKILL')).catch(() => undefined);
    await expect(result).rejects.toThrow(/exited \(2\)/);
    await expect(result).rejects.toThrow(message);
  });
});
