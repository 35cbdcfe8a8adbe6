/**
 * Who may touch what, over a real server: no token or a wrong one is a 401; a token never
 * reads, lists, runs, views or deletes another user's sessions (404, as for a missing one);
 * tokens never reach the log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { textResponse } from '../testing/scripted-model.js';
import {
  APP,
  startTestServer,
  type TestServer,
  TOKEN_ALICE,
  TOKEN_BOB,
} from './test-helpers/test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function as(token: string | undefined, path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${server!.url}${path}`, {
    ...rest,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
}

describe('bearer tokens', () => {
  it('a missing, malformed or unknown token is a 401 problem naming the header', async () => {
    server = await startTestServer({ tokens: true });
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: 'Token abc' },
      { authorization: 'Bearer wrong-token-0123456789' },
    ];
    for (const headers of variants) {
      const response = await fetch(`${server.url}/list-apps`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="orrery"');
      expect(await response.json()).toMatchObject({ status: 401, field: 'authorization' });
    }
    expect((await as(TOKEN_ALICE, '/list-apps')).status).toBe(200);
    // Probes and the version answer without a token.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it("a token never reads, lists, runs, views or deletes another user's sessions: 404", async () => {
    server = await startTestServer({ tokens: true, script: [textResponse('for alice')] });
    const alice = `/apps/${APP}/users/alice/sessions`;
    expect((await as(TOKEN_ALICE, `${alice}/secret`, { method: 'POST' })).status).toBe(200);
    expect(
      (
        await as(TOKEN_ALICE, '/run', {
          method: 'POST',
          json: {
            appName: APP,
            userId: 'alice',
            sessionId: 'secret',
            newMessage: { parts: [{ text: 'hi' }] },
          },
        })
      ).status,
    ).toBe(200);

    // Bob (who may act as bob and carol) probes alice's session every way.
    const attempts = [
      as(TOKEN_BOB, alice),
      as(TOKEN_BOB, `${alice}/secret`),
      as(TOKEN_BOB, `${alice}/secret/view`),
      as(TOKEN_BOB, `${alice}/secret/events`),
      as(TOKEN_BOB, `${alice}/secret/compact`, { method: 'POST' }),
      as(TOKEN_BOB, `${alice}/secret`, { method: 'DELETE' }),
      as(TOKEN_BOB, `${alice}/new`, { method: 'POST' }),
      as(TOKEN_BOB, '/run', {
        method: 'POST',
        json: {
          appName: APP,
          userId: 'alice',
          sessionId: 'secret',
          newMessage: { parts: [{ text: 'leak?' }] },
        },
      }),
      as(TOKEN_BOB, '/run_sse', {
        method: 'POST',
        json: {
          appName: APP,
          userId: 'alice',
          sessionId: 'secret',
          newMessage: { parts: [{ text: 'leak?' }] },
        },
      }),
    ];
    const responses = await Promise.all(attempts);
    expect(responses.map((response) => response.status)).toEqual(Array(attempts.length).fill(404));
    // The answer for an existing session of another user is the one for a missing session.
    const existing = (await (await as(TOKEN_BOB, `${alice}/secret`)).json()) as Record<
      string,
      unknown
    >;
    const missing = (await (await as(TOKEN_ALICE, `${alice}/nope`)).json()) as Record<
      string,
      unknown
    >;
    expect({ ...existing, requestId: undefined, detail: undefined, error: undefined }).toEqual({
      ...missing,
      requestId: undefined,
      detail: undefined,
      error: undefined,
    });
    // Alice's session is untouched: still two events, nothing created for her by bob.
    const events = await server.service.listEvents({
      appName: APP,
      userId: 'alice',
      sessionId: 'secret',
    });
    expect(events.events).toHaveLength(2);
    expect(await server.service.listSessions({ appName: APP, userId: 'alice' })).toHaveLength(1);

    // Bob's own users work.
    expect(
      (await as(TOKEN_BOB, `/apps/${APP}/users/carol/sessions/c1`, { method: 'POST' })).status,
    ).toBe(200);
    expect((await as(TOKEN_BOB, `/apps/${APP}/users/carol/sessions`)).status).toBe(200);
  });

  it('tokens never appear in the log', async () => {
    server = await startTestServer({ tokens: true });
    await as(TOKEN_ALICE, `/apps/${APP}/users/alice/sessions`);
    await as('Bearer-of-bad-news-0123456789', '/list-apps');
    await fetch(`${server.url}/list-apps?token=${TOKEN_BOB}`, {
      headers: { authorization: `Bearer ${TOKEN_BOB}` },
    });
    const text = server.logText();
    expect(text).not.toContain(TOKEN_ALICE);
    expect(text).not.toContain(TOKEN_BOB);
    expect(text).not.toContain('Bearer-of-bad-news');
    const access = server.logs.filter((line) => line.msgType === 'access');
    expect(access).toHaveLength(3);
    expect(access[0]).toMatchObject({ userId: 'alice', status: 200 });
    expect(access[0]!.tokenId).toMatch(/^[0-9a-f]{8}$/);
  });
});
