/**
 * `GET /apps/:app/users/:user/memory`: the user's memory across sessions, under the user's
 * scope (a token that is not the user's gets a 404), bad parameters a 400 naming them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { userTextEvent } from '../testing/event-builders.js';
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

/** 2024-05-01T00:00:00Z */
const may1 = 1_714_521_600;

async function say(userId: string, sessionId: string, text: string, timestamp: number) {
  const key = { appName: APP, userId, sessionId };
  if (!(await server!.service.getSession(key))) await server!.service.createSession(key);
  return server!.service.appendEvent({ ...key, event: userTextEvent({ text, timestamp }) });
}

function get(token: string, path: string) {
  return fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

describe('GET /apps/:app/users/:user/memory', () => {
  it("answers the user's memories across sessions, filtered, never to another user's token", async () => {
    server = await startTestServer({ tokens: true });
    await say('alice', 'a1', 'the tandem bicycle is in the garage', may1);
    await say('alice', 'a2', 'the tandem bicycle got new tyres', may1 + 86_400);
    await say('bob', 'b1', 'my tandem bicycle is red', may1);
    const base = `/apps/${APP}/users/alice/memory`;
    const response = await get(TOKEN_ALICE, `${base}?query=tandem%20bicycle`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { memories: Array<{ sessionId: string }> };
    expect(body.memories.map((entry) => entry.sessionId).sort()).toEqual(['a1', 'a2']);
    const later = await get(TOKEN_ALICE, `${base}?query=tandem&after=2024-05-01T12:00:00Z&limit=5`);
    expect(await later.json()).toMatchObject({
      memories: [{ sessionId: 'a2', seq: 1, author: 'user', timestamp: may1 + 86_400 }],
    });
    const bySeconds = await get(TOKEN_ALICE, `${base}?query=tandem&before=${may1 + 1}`);
    expect(
      ((await bySeconds.json()) as { memories: Array<{ sessionId: string }> }).memories.map(
        (entry) => entry.sessionId,
      ),
    ).toEqual(['a1']);
    const byAuthor = await get(TOKEN_ALICE, `${base}?query=tandem&author=assistant`);
    expect(await byAuthor.json()).toEqual({ memories: [] });
    // Bob's token may not act as alice: 404, as for a user with no sessions.
    expect((await get(TOKEN_BOB, `${base}?query=tandem`)).status).toBe(404);
  });

  it('names a missing query, a bad limit and a bad time', async () => {
    server = await startTestServer({ tokens: true });
    const base = `/apps/${APP}/users/alice/memory`;
    for (const [path, field] of [
      [base, 'query'],
      [`${base}?query=x&limit=0`, 'limit'],
      [`${base}?query=x&limit=101`, 'limit'],
      [`${base}?query=x&after=someday`, 'after'],
    ] as const) {
      const response = await get(TOKEN_ALICE, path);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ status: 400, field });
    }
    expect((await get(TOKEN_ALICE, `/apps/other/users/alice/memory?query=x`)).status).toBe(404);
  });
});
