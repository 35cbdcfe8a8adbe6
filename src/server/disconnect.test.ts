/**
 * A client that disconnects mid-stream aborts its run: the model call's signal fires, what was
 * stored stays (gapless seq, the user's message first), and the session takes the next run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../models/types.js';
import { textResponse } from '../testing/scripted-model.js';
import { APP, startTestServer, type TestServer } from './test-helpers/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model step that waits until its request is aborted, reporting when it started and ended. */
function blockingStep() {
  let started!: () => void;
  let aborted!: (reason: unknown) => void;
  const whenStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const whenAborted = new Promise<unknown>((resolve) => {
    aborted = resolve;
  });
  const step = (request: ModelRequest) =>
    new Promise<never>((_resolve, reject) => {
      started();
      request.signal?.addEventListener('abort', () => {
        aborted(request.signal?.reason);
        reject(request.signal?.reason);
      });
    });
  return { step, whenStarted, whenAborted };
}

const key = { appName: APP, userId: 'local', sessionId: 's' };

describe.each(['/run_sse', '/run'])('client disconnect on %s', (route) => {
  it('aborts the run; the stored events stay consistent and the session runs again', async () => {
    const blocking = blockingStep();
    server = await startTestServer({ script: [blocking.step, textResponse('second answer')] });
    await server.service.createSession(key);
    const client = new AbortController();
    const response = fetch(`${server.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...key, newMessage: { role: 'user', parts: [{ text: 'first' }] } }),
      signal: client.signal,
    });
    // The stream opens once the user's message is stored, before the model is called.
    if (route === '/run_sse') expect((await response).status).toBe(200);
    await blocking.whenStarted;
    client.abort();
    await response.catch(() => undefined);
    // The model call's signal fired because the client went away.
    await blocking.whenAborted;
    await server.server.inFlight.idle();

    const stored = await server.service.listEvents(key);
    expect(stored.events.map((event) => [event.seq, event.author])).toEqual([[1, 'user']]);
    expect(
      server.logs.some(
        (line) => line.msgType === 'client_disconnected' || line.msgType === 'run_aborted',
      ),
    ).toBe(true);

    // The lease was released: the next run on the session goes through.
    const next = await fetch(`${server.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...key, newMessage: { role: 'user', parts: [{ text: 'again' }] } }),
    });
    expect(next.status).toBe(200);
    const all = await server.service.listEvents(key);
    expect(all.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(all.events.map((event) => event.author)).toEqual(['user', 'user', 'assistant']);
  });
});
