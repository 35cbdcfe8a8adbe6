import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../events/types.js';
import { PiiRedactionPlugin } from './pii-redaction.js';

const plugin = new PiiRedactionPlugin();
const runContext = {
  appName: 'app',
  userId: 'user',
  sessionId: 's',
  invocationId: 'inv',
  agentName: 'agent',
};

function event(parts: NonNullable<NewEvent['content']>['parts']): NewEvent {
  return {
    id: 'e1',
    invocationId: 'inv',
    author: 'agent',
    timestamp: 1,
    actions: { stateDelta: { apiKey: 'kept-in-state' } },
    content: { role: 'model', parts },
  };
}

describe('PiiRedactionPlugin', () => {
  it('redacts tool results before a cap can cut them', () => {
    const result = plugin.afterTool({
      ...runContext,
      toolName: 'lookup',
      functionCallId: 'c1',
      args: {},
      result: { contact: 'write to ann@example.org', password: 'hunter2', id: 'cust-42' },
    });
    expect(result).toEqual({
      contact: 'write to [REDACTED:email]',
      password: '[REDACTED:secret]',
      id: 'cust-42',
    });
  });

  it("redacts every stored part: texts, the model's own call arguments and results", () => {
    const original = event([
      { text: 'key AKIAIOSFODNN7EXAMPLE', thought: true },
      {
        functionCall: {
          id: 'c1',
          name: 'login',
          args: { user: 'bob', password: 'Tr0ub4dor&3', note: 'card 4111 1111 1111 1111' },
        },
      },
      { functionResponse: { id: 'c1', name: 'login', response: { token: 'abc', ok: true } } },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    original.errorMessage = 'failed for bob@example.com';
    const before = structuredClone(original);
    const redacted = plugin.onEvent({ ...runContext, event: original });
    expect(redacted.content?.parts).toEqual([
      { text: 'key [REDACTED:aws_access_key]', thought: true },
      {
        functionCall: {
          id: 'c1',
          name: 'login',
          args: { user: 'bob', password: '[REDACTED:secret]', note: 'card [REDACTED:card]' },
        },
      },
      {
        functionResponse: {
          id: 'c1',
          name: 'login',
          response: { token: '[REDACTED:secret]', ok: true },
        },
      },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
    expect(redacted.errorMessage).toBe('failed for [REDACTED:email]');
    // State is the tools' working memory: kept. The event the agent holds is not changed (its
    // tools run with the real arguments).
    expect(redacted.actions).toEqual({ stateDelta: { apiKey: 'kept-in-state' } });
    expect(original).toEqual(before);
  });

  it('takes extra rules; a bare RegExp is redacted as custom', () => {
    const custom = new PiiRedactionPlugin({
      rules: [/EMP-\d{6}/, { kind: 'ticket', pattern: /\bSEC-\d{1,6}\b/ }],
    });
    const redacted = custom.onEvent({
      ...runContext,
      event: event([{ text: 'EMP-123456 filed SEC-42 from ann@example.org' }]),
    });
    expect(redacted.content?.parts[0]?.text).toBe(
      '[REDACTED:custom] filed [REDACTED:ticket] from [REDACTED:email]',
    );
  });
});
