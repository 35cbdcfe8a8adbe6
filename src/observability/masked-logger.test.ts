import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LlmAgent } from '../runtime/agents/llm-agent.js';
import { Runner } from '../runtime/turn/runner.js';
import { InMemorySessionService } from '../sessions/in-memory-session-service.js';
import { ScriptedModel, textResponse } from '../testing/scripted-model.js';
import { maskingLogger } from './masked-logger.js';

function capture(): {
  logger: Logger;
  text: () => string;
  lines: () => Record<string, unknown>[];
} {
  let output = '';
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      output += String(chunk);
      callback();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    text: () => output,
    lines: () =>
      output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('maskingLogger', () => {
  it('masks the message, fields, header values, errors and their causes, in children too', () => {
    const { logger, text, lines } = capture();
    const masked = maskingLogger(logger);
    const error = new Error('fetch http://u:hunter2pw@host/v1 failed', {
      cause: new Error('Authorization: Basic aHVudGVyMnB3'),
    });
    masked.warn(
      {
        url: 'postgres://app:hunter2pw@db/orrery',
        headers: { Authorization: 'Bearer abcdefgh12345678', 'x-api-key': 'k-123', accept: 'json' },
        err: error,
      },
      'call to http://u:hunter2pw@host/v1 failed',
    );
    masked.child({ baseUrl: 'http://u:hunter2pw@host' }).info('child line');
    expect(text()).not.toContain('hunter2pw');
    expect(text()).not.toContain('aHVudGVyMnB3');
    expect(text()).not.toContain('abcdefgh12345678');
    const [first, second] = lines();
    expect(first?.msg).toBe('call to http://u:***@host/v1 failed');
    expect(first?.url).toBe('postgres://app:***@db/orrery');
    expect(first?.headers).toEqual({
      Authorization: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      accept: 'json',
    });
    expect((first?.err as { message?: string } | undefined)?.message).toBe(
      'fetch http://u:***@host/v1 failed: Authorization: Basic [REDACTED:secret]',
    );
    expect(second).toMatchObject({ msg: 'child line', baseUrl: 'http://u:***@host' });
    // The caller's error is not changed.
    expect(error.message).toBe('fetch http://u:hunter2pw@host/v1 failed');
  });

  it("masks the Runner's log lines, a failing summarizer's error included", async () => {
    const { logger, text } = capture();
    const sessionService = new InMemorySessionService();
    const key = { appName: 'app', userId: 'user', sessionId: 's' };
    await sessionService.createSession(key);
    const runner = new Runner({
      appName: 'app',
      agent: new LlmAgent({
        name: 'agent',
        model: new ScriptedModel({ script: [textResponse(`answer ${'word '.repeat(300)}`)] }),
      }),
      sessionService,
      compaction: { tokenThreshold: 100, eventRetentionSize: 0, retentionTokenBudget: 10 },
      summarizer: {
        name: 'broken',
        summarize: async () => {
          throw new Error('cannot reach http://svc:hunter2pw@summarizer.internal/v1');
        },
      },
      fallbackSummarizer: null,
      logger,
    });
    for await (const _event of runner.run({ ...key, newMessage: 'hello' })) {
      // drain
    }
    await runner.flush();
    expect(text()).toContain('summarizer_failure');
    expect(text()).toContain('http://svc:***@summarizer.internal/v1');
    expect(text()).not.toContain('hunter2pw');
  });
});
