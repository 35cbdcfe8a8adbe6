/**
 * `orrery run` and `orrery chat` against a local fake OpenAI-compatible server (chat
 * completions): sessions continue across runs, compaction lines appear at a small threshold,
 * and chat reads piped input line by line and ends on EOF.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from './in-process.js';

interface ChatMessage {
  role: string;
  content: unknown;
}

/** Every request the fake received; `failWith` makes the next answers an HTTP error. */
const requests: ChatMessage[][] = [];
let failWith: number | undefined;
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += String(chunk);
    });
    request.on('end', () => {
      const parsed = JSON.parse(body) as { model: string; messages: ChatMessage[] };
      requests.push(parsed.messages);
      response.setHeader('content-type', 'application/json');
      if (failWith !== undefined) {
        response.statusCode = failWith;
        response.end(JSON.stringify({ error: { message: 'invalid api key', type: 'auth' } }));
        return;
      }
      const summarizing = body.includes('You maintain the running summary');
      const last = parsed.messages[parsed.messages.length - 1];
      const text = summarizing
        ? `SUMMARY of ${parsed.messages.length} messages`
        : `echo: ${String(last?.content)} ${'detail '.repeat(40)}`.trim();
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1,
          model: parsed.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
          ],
          usage: {
            prompt_tokens: Math.ceil(body.length / 4),
            completion_tokens: Math.ceil(text.length / 4),
            total_tokens: Math.ceil((body.length + text.length) / 4),
          },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ORRERY_MODEL: 'openai-compatible:fake',
    ORRERY_OPENAI_COMPATIBLE_BASE_URL: baseUrl,
    ...extra,
  };
}

describe('orrery run', () => {
  it('continues the session on a second run and prints one JSON document with --json', async () => {
    const db = join(tempDir(), 'orrery.db');
    requests.length = 0;
    const first = await cli(['run', '--db', db, '--session', 'demo', 'What changed?'], {
      env: env(),
    });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^assistant: echo: What changed\?/);

    const second = await cli(['run', '--db', db, '--session', 'demo', '--json', 'And before?'], {
      env: env(),
    });
    expect(second.code).toBe(0);
    const output = JSON.parse(second.stdout);
    expect(output.sessionId).toBe('demo');
    expect(output.events.map((event: { seq: number }) => event.seq)).toEqual([3, 4]);
    // The second request held the first exchange.
    const conversation = requests[1]?.filter((message) => message.role !== 'system');
    expect(conversation?.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(conversation?.[0]?.content).toBe('What changed?');
  });

  it('prints a line per compaction when the threshold is small', async () => {
    const db = join(tempDir(), 'orrery.db');
    const small = env({
      ORRERY_COMPACTION_TOKEN_THRESHOLD: '200',
      ORRERY_COMPACTION_RETENTION_EVENTS: '2',
    });
    let compactions = '';
    for (const message of ['first question', 'second question', 'third question']) {
      const result = await cli(['run', '--db', db, '--session', 'long', message], { env: small });
      expect(result.code).toBe(0);
      compactions += result.stderr;
    }
    expect(compactions).toMatch(
      /^· compacted \(token_threshold\): seq 1-\d+, tokens [\d,]+ -> [\d,]+$/m,
    );
    const view = JSON.parse((await cli(['view', 'long', '--db', db, '--json'])).stdout);
    expect(view.contents[0].parts[0].text).toMatch(
      /^Summary of the conversation so far:\s+SUMMARY/,
    );
  });
});

describe('orrery chat', () => {
  it('answers piped lines in order, without prompts, and ends on EOF', async () => {
    const db = join(tempDir(), 'orrery.db');
    requests.length = 0;
    const result = await cli(['chat', '--db', db, '--session', 'notes'], {
      env: env(),
      stdin: 'first line\n\nsecond line\nthird line',
    });
    expect(result.code).toBe(0);
    const answers = result.stdout.trim().split('\n');
    expect(answers).toHaveLength(3);
    expect(answers[0]).toMatch(/^assistant> echo: first line/);
    expect(answers[1]).toMatch(/^assistant> echo: second line/);
    expect(answers[2]).toMatch(/^assistant> echo: third line/);
    expect(result.stdout).not.toContain('you>');
    expect(result.stderr).toBe(
      'new session notes with openai-compatible:fake (Ctrl-C to quit)\nsession notes saved\n',
    );
    const list = JSON.parse((await cli(['sessions', 'list', '--db', db, '--json'])).stdout);
    expect(list).toEqual([expect.objectContaining({ sessionId: 'notes', eventCount: 6 })]);
  });

  it('exits 1 when piped messages got no answer', async () => {
    const db = join(tempDir(), 'orrery.db');
    failWith = 401;
    try {
      const result = await cli(['chat', '--db', db, '--session', 'broken'], {
        env: env(),
        stdin: 'hello\n',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^error: .*invalid api key/m);
      expect(result.stderr).toMatch(
        /orrery: ChatTurnsFailedError: 1 message got no answer .*session broken keeps what was stored\n$/,
      );
    } finally {
      failWith = undefined;
    }
  });
});
