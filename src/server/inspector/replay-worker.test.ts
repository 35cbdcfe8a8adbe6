/**
 * The inspector's replay as `orrery serve` and `orrery inspect` run it: in a worker thread.
 * While a large replay runs, `/healthz` answers (the event loop is free); when the client goes
 * away the worker is stopped (its work counted in events, never timed); concurrent replays are
 * bounded per server and per token (429 with Retry-After); a bad body is still a 400.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  startTestServer,
  type TestServer,
  TOKEN_ALICE,
  TOKEN_BOB,
} from '../test-helpers/test-server.js';
import { chatTranscript } from './test-helpers/chat-transcript.js';
import { createWorkerReplay, type WorkerReplayOptions } from './worker-replay.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A replay that runs for a long while: ~2 MB of short turns, a window after every one. */
const large = chatTranscript({ bytes: 2_000_000 });
const LARGE_EVENTS = large.turns * 2;
const largeBody = JSON.stringify({ transcript: large.text, interval: 1, overlap: 4 });

/** Resolves once the worker reported `events` replayed events. */
function progressTracker() {
  let events = 0;
  const waiters: Array<{ at: number; resolve: () => void }> = [];
  const exits: Array<{ events: number; stopped: boolean }> = [];
  let exited!: (report: { events: number; stopped: boolean }) => void;
  const whenExited = new Promise<{ events: number; stopped: boolean }>((resolve) => {
    exited = resolve;
  });
  const options: WorkerReplayOptions = {
    onProgress: (count) => {
      events = count;
      for (const waiter of waiters.filter((item) => item.at <= count)) waiter.resolve();
    },
    onExit: (report) => {
      exits.push(report);
      exited(report);
    },
  };
  return {
    options,
    exits,
    whenExited,
    events: () => events,
    reached: (at: number) =>
      new Promise<void>((resolve) => {
        if (events >= at) resolve();
        else waiters.push({ at, resolve });
      }),
  };
}

async function start(
  tracker: ReturnType<typeof progressTracker>,
  inspector: Record<string, unknown> = {},
) {
  server = await startTestServer({
    tokens: true,
    serverOptions: {
      inspector: { replay: createWorkerReplay(tracker.options), ...inspector },
    },
  });
  return server;
}

function replay(url: string, options: { token?: string; body?: string; signal?: AbortSignal }) {
  return fetch(`${url}/inspector/api/replay`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${options.token ?? TOKEN_ALICE}`,
    },
    body: options.body ?? largeBody,
    signal: options.signal,
  });
}

describe('the replay worker', () => {
  it('keeps /healthz answering while a large replay runs, and stops the replay when the client leaves', async () => {
    const tracker = progressTracker();
    const { url, logs } = await start(tracker);
    const client = new AbortController();
    let answered = false;
    const running = replay(url, { signal: client.signal }).then(
      () => {
        answered = true;
      },
      () => undefined,
    );
    await tracker.reached(64);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    // Answered while the replay is still running: no clock, the replay simply has not ended.
    expect(answered).toBe(false);
    expect(tracker.exits).toEqual([]);

    client.abort();
    await running;
    const exit = await tracker.whenExited;
    expect(exit.stopped).toBe(true);
    // The work stopped: far fewer events than the transcript holds, and none after the exit.
    expect(exit.events).toBeLessThan(LARGE_EVENTS / 2);
    const atExit = tracker.events();
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(tracker.events()).toBe(atExit);
    // Logged and counted as the client's leaving, not as a server error.
    await expect
      .poll(() =>
        logs.find((line) => line.msgType === 'access' && line.route === '/inspector/api/replay'),
      )
      .toMatchObject({ status: 499 });
    expect(logs.some((line) => line.msgType === 'client_closed')).toBe(true);
    expect(logs.some((line) => line.level === 50)).toBe(false);
  }, 120_000);

  it('bounds replays per token and per server: 429 with Retry-After', async () => {
    const tracker = progressTracker();
    const { url } = await start(tracker, {
      maxConcurrentReplays: 1,
      maxConcurrentReplaysPerUser: 1,
    });
    const client = new AbortController();
    const first = replay(url, { signal: client.signal }).catch(() => undefined);
    await tracker.reached(16);
    for (const token of [TOKEN_ALICE, TOKEN_BOB]) {
      const refused = await replay(url, { token });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      const problem = (await refused.json()) as { detail: string };
      expect(problem.detail).toContain(token === TOKEN_ALICE ? 'for this token' : 'on this server');
    }
    client.abort();
    await first;
    await tracker.whenExited;
    // The slot is free again: a small replay goes through.
    const small = chatTranscript({ bytes: 1_000 });
    const next = await replay(url, { body: JSON.stringify({ transcript: small.text }) });
    expect(next.status, await next.clone().text()).toBe(200);
    expect(await next.json()).toMatchObject({ events: small.turns * 2 });
  }, 120_000);

  it('parses and checks the body in the worker: bad ones are 400s naming the field', async () => {
    const tracker = progressTracker();
    const { url } = await start(tracker, { maxConcurrentReplaysPerUser: 4 });
    const small = chatTranscript({ bytes: 1_000 }).text;
    const cases: Array<[string, string]> = [
      ['{not json', 'body'],
      [JSON.stringify({ transcript: small, interval: 1, overlap: 1_000_000 }), 'overlap'],
      [JSON.stringify({ transcript: small, maxRequestBytes: 1 }), 'maxRequestBytes'],
      [JSON.stringify({ transcript: small, threshold: -1 }), 'threshold'],
      [JSON.stringify({ transcript: '[[[[' }), 'transcript'],
    ];
    for (const [body, field] of cases) {
      const response = await replay(url, { body });
      expect(response.status, body.slice(0, 60)).toBe(400);
      expect(await response.json()).toMatchObject({ field });
    }
  }, 120_000);
});
