/**
 * `orrery run` and `orrery chat` against a local fake OpenAI-compatible server (chat
 * completions): sessions continue across runs, compaction lines appear at a small threshold,
 * and chat reads piped input line by line and ends on EOF.
 */

import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cli, tempDir } from './in-process.js';

interface ChatMessage {
  role: string;
  content: unknown;
}

/** Every request the fake received; `failWith` makes the next answers an HTTP error. */
const requests: ChatMessage[][] = [];
/** Whether each request asked for a stream (`stream: true`, answered as Server-Sent Events). */
const streamed: boolean[] = [];
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
      const parsed = JSON.parse(body) as {
        model: string;
        messages: ChatMessage[];
        stream?: boolean;
      };
      requests.push(parsed.messages);
      streamed.push(parsed.stream === true);
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
      const usage = {
        prompt_tokens: Math.ceil(body.length / 4),
        completion_tokens: Math.ceil(text.length / 4),
        total_tokens: Math.ceil((body.length + text.length) / 4),
      };
      if (parsed.stream) {
        // Chat Completions streaming: a chunk per word, the finish, then usage and [DONE].
        response.setHeader('content-type', 'text/event-stream');
        const chunk = (fields: Record<string, unknown>) =>
          `data: ${JSON.stringify({ id: `chatcmpl-${requests.length}`, object: 'chat.completion.chunk', created: 1, model: parsed.model, ...fields })}\n\n`;
        const words = text.match(/\S+\s*/g) ?? [];
        for (const word of words) {
          response.write(
            chunk({ choices: [{ index: 0, delta: { content: word }, finish_reason: null }] }),
          );
        }
        response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
        response.write(chunk({ choices: [], usage }));
        response.end('data: [DONE]\n\n');
        return;
      }
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: 1,
          model: parsed.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
          ],
          usage,
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

  it('says once when compactions reclaim too little to help', async () => {
    const db = join(tempDir(), 'orrery.db');
    // Each answer is ~100 tokens: a 200-token threshold with 2 events kept compacts every turn
    // and leaves the next request near the threshold.
    const result = await cli(['chat', '--db', db], {
      env: env({
        ORRERY_COMPACTION_TOKEN_THRESHOLD: '200',
        ORRERY_COMPACTION_RETENTION_EVENTS: '2',
      }),
      stdin: 'one\ntwo\nthree\nfour\nfive',
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/^· compacted /gm)?.length ?? 0).toBeGreaterThan(1);
    const notes = result.stderr.match(/^· note: that compaction left the next request at .*$/gm);
    expect(notes).toHaveLength(1);
    expect(notes?.[0]).toMatch(
      /of the 200-token threshold.*raise ORRERY_COMPACTION_TOKEN_THRESHOLD/,
    );
  });
});

describe('--agent and --model', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('runs examples/agent.ts on the --model given, scoped by the app name', async () => {
    // The module builds its own model at import from the process environment.
    vi.stubEnv('ORRERY_MODEL', 'google:gemini-2.5-flash');
    vi.stubEnv('GEMINI_API_KEY', 'test-key-not-used');
    const db = join(tempDir(), 'orrery.db');
    requests.length = 0;
    const result = await cli(
      [
        'run',
        '--agent',
        'examples/agent.ts',
        '--model',
        'openai-compatible:fake',
        '--db',
        db,
        '--session',
        'tools',
        'hello',
      ],
      { env: env({ ORRERY_MODEL: 'openai-compatible:unused' }) },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^workspace_helper: echo: hello/);
    expect(requests[0]?.[0]?.role).toBe('system');
    expect(String(requests[0]?.[0]?.content)).toContain('list_files and read_file');
    const list = await cli(['sessions', 'list', '--db', db, '--app', 'workspace-helper', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ sessionId: 'tools' })]);
  });

  it('--model overrides ORRERY_MODEL for the built-in assistant', async () => {
    const db = join(tempDir(), 'orrery.db');
    const result = await cli(
      ['run', '--model', 'openai-compatible:fake', '--db', db, '--json', 'hi'],
      { env: env({ ORRERY_MODEL: 'nonsense-without-provider' }) },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).events[1].author).toBe('assistant');
  });

  it('a module that is not an agent: exit 2, one line naming the file, nothing written', async () => {
    const directory = tempDir();
    const module = join(directory, 'not-an-agent.mjs');
    writeFileSync(module, 'export default () => {};\n');
    const db = join(directory, 'orrery.db');
    const result = await cli(['chat', '--agent', module, '--db', db], {
      env: env(),
      stdin: 'hi\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `orrery: AgentModuleError: ${module}: the default export must be an agent (an object with name and runAsync) or an app { agent, appName?, compaction?, summarizer?, plugins?, sessionLease? }; got: a function\n`,
    );
    expect(existsSync(db)).toBe(false);
  });
});

describe('orrery chat', () => {
  it('answers piped lines in order, without prompts, and ends on EOF', async () => {
    const db = join(tempDir(), 'orrery.db');
    requests.length = 0;
    streamed.length = 0;
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
    // Streamed (the default when the model can), printed once: the stored answer is not repeated.
    expect(streamed).toEqual([true, true, true]);
    expect(result.stderr).toBe(
      'new session notes with openai-compatible:fake (Ctrl-C to quit)\ncompaction: token threshold 250,000 tokens (default)\nsession notes saved\n',
    );
    const list = JSON.parse((await cli(['sessions', 'list', '--db', db, '--json'])).stdout);
    expect(list).toEqual([expect.objectContaining({ sessionId: 'notes', eventCount: 6 })]);
  });

  it('says at start which threshold is in effect and where it came from', async () => {
    const db = join(tempDir(), 'orrery.db');
    const fromEnv = await cli(['chat', '--db', db], {
      env: env({ ORRERY_COMPACTION_TOKEN_THRESHOLD: '5000' }),
      stdin: 'hello',
    });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stderr).toContain(
      '\ncompaction: token threshold 5,000 tokens (env: ORRERY_COMPACTION_TOKEN_THRESHOLD)\n',
    );
    const module = join(tempDir(), 'app.mjs');
    writeFileSync(
      module,
      "export default { agent: { name: 'quiet', async *runAsync() {} }, summarizer: { name: 'none', summarize: async () => null }, compaction: { tokenThreshold: 7000, eventRetentionSize: 4 } };\n",
    );
    const fromAgent = await cli(['chat', '--db', db, '--agent', module], {
      env: env({ ORRERY_COMPACTION_TOKEN_THRESHOLD: '5000' }),
      stdin: 'hello',
    });
    expect(fromAgent.stderr).toContain(
      '\ncompaction: token threshold 7,000 tokens (the agent module; ignores ORRERY_COMPACTION_TOKEN_THRESHOLD=5000)\n',
    );
  });

  it('--no-stream asks for whole answers and prints the same lines', async () => {
    const db = join(tempDir(), 'orrery.db');
    streamed.length = 0;
    const result = await cli(['chat', '--db', db, '--no-stream'], {
      env: env(),
      stdin: 'one\ntwo\n',
    });
    expect(result.code).toBe(0);
    expect(streamed).toEqual([false, false]);
    const answers = result.stdout.trim().split('\n');
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^assistant> echo: two detail detail/);
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
