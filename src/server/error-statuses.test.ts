/**
 * What the server answers and logs when a request fails (docs/server-limits.md#error-statuses):
 * a 500's log line holds the message and the stack (masked) with the request id; a deeply nested
 * body is a 400 naming the field; a client that leaves mid-upload is a 499 `client_closed`, not
 * a 500; the 401's help text is readable; a 502 never shows the upstream's URL to the client;
 * `/metrics` is read with an operator token only.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../models/errors.js';
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

const OPERATOR = 'operator-token-0123456789abcdef';
const key = { appName: APP, userId: 'local', sessionId: 's' };

function runBody(parts: unknown[]): string {
  return JSON.stringify({ ...key, newMessage: { role: 'user', parts } });
}

function post(path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('error statuses', () => {
  it("a 500's log line holds the message and the masked stack, with the request id", async () => {
    server = await startTestServer();
    server.service.listSessions = async () => {
      throw new RangeError('lost the shard at postgres://bob:S3cretPw9@db.internal:5432/x');
    };
    const response = await fetch(`${server.url}/apps/${APP}/users/local/sessions`);
    expect(response.status).toBe(500);
    const requestId = response.headers.get('x-request-id');
    const line = server.logs.find((entry) => entry.level === 50);
    expect(line).toMatchObject({ requestId, msgType: 'request_failed', status: 500 });
    const error = line?.error as { name: string; message: string; stack: string };
    expect(error.name).toBe('RangeError');
    expect(error.message).toContain('lost the shard at postgres://bob:***@db.internal');
    expect(error.stack).toContain('RangeError: lost the shard');
    expect(error.stack).toMatch(/error-statuses\.test\.ts/);
    expect(server.logText()).not.toContain('S3cretPw9');
  });

  it('a deeply nested body on /run is a 400 naming the field, not a 500', async () => {
    server = await startTestServer();
    await server.service.createSession(key);
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const body = runBody([]).replace('"parts":[]', `"parts":[${deep}]`);
    const response = await post('/run', body);
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { field: string; detail: string };
    expect(problem.field).toBe('newMessage.parts[0][0]');
    expect(problem.detail).toContain('nests deeper than 512 levels');
    expect(server.logs.some((entry) => entry.level === 50)).toBe(false);
  });

  it('a client that disconnects mid-upload is logged and counted as 499 client_closed, not 500', async () => {
    server = await startTestServer();
    const { port } = server.listening;
    for (let attempt = 0; attempt < 3; attempt++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port }, () => {
          socket.write(
            'POST /run HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"appName":"',
          );
          // Gone before the rest of the body: the server is reading it.
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
        socket.on('error', reject);
      });
    }
    await expect
      .poll(() => server!.logs.filter((entry) => entry.msgType === 'access').length)
      .toBe(3);
    const access = server.logs.filter((entry) => entry.msgType === 'access');
    expect(access.map((entry) => entry.status)).toEqual([499, 499, 499]);
    expect(server.logs.filter((entry) => entry.msgType === 'client_closed')).toHaveLength(3);
    expect(server.logs.some((entry) => entry.level === 50)).toBe(false);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /orrery_http_requests_total\{method="POST",route="\/run",status="499"\} 3/,
    );
    expect(metrics).not.toMatch(/status="500"/);
  });

  it("the 401's help text is readable, not eaten by the credential masks", async () => {
    server = await startTestServer({ tokens: true });
    const missing = await fetch(`${server.url}/list-apps`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({
      detail: 'this server needs a bearer token: send Authorization: Bearer <token>',
      field: 'authorization',
    });
    const malformed = await fetch(`${server.url}/list-apps`, { headers: { authorization: 'x' } });
    expect(((await malformed.json()) as { detail: string }).detail).toBe(
      'the Authorization header must be "Bearer <token>"',
    );
  });

  it('a 502 tells the client the model failed, never the upstream URL (the log has it)', async () => {
    server = await startTestServer({
      script: [
        () =>
          Promise.reject(
            new ModelError({
              kind: 'fatal',
              statusCode: 400,
              message: 'POST http://llm-gateway.internal:4000/v1/chat/completions: 400 bad request',
            }),
          ),
      ],
    });
    await server.service.createSession(key);
    const response = await post('/run', runBody([{ text: 'hello' }]));
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).not.toContain('llm-gateway.internal');
    expect(JSON.parse(text)).toMatchObject({ detail: expect.stringContaining('HTTP 400') });
    expect(server.logText()).toContain('llm-gateway.internal');
  });

  it('/metrics is read with an operator token; a user token gets a 403', async () => {
    server = await startTestServer({
      serverOptions: {
        auth: {
          grants: [
            { token: TOKEN_ALICE, userIds: ['alice'] },
            { token: TOKEN_BOB, userIds: ['bob'] },
            { token: OPERATOR, userIds: [], roles: ['operator'] },
          ],
        },
      },
    });
    const as = (token: string) =>
      fetch(`${server!.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    for (const token of [TOKEN_ALICE, TOKEN_BOB]) {
      const refused = await as(token);
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toContain('orrery_http_requests_total');
    }
    const operator = await as(OPERATOR);
    expect(operator.status).toBe(200);
    expect(await operator.text()).toContain('orrery_http_requests_total');
    // An operator token with no user acts as no user.
    const sessions = await fetch(`${server.url}/apps/${APP}/users/alice/sessions`, {
      headers: { authorization: `Bearer ${OPERATOR}` },
    });
    expect(sessions.status).toBe(404);
  });
});
