import { describe, expect, it } from 'vitest';
import type { Content, Event } from '../events/types.js';
import { ModelError } from '../models/errors.js';
import { ScriptedModel, textResponse } from '../testing/scripted-model.js';
import {
  type AgentPrefixSummaryOptions,
  agentPrefixInstruction,
  contentsAfter,
  messageSeqsOf,
  summarizeWithAgentPrefix,
} from './agent-prefix-summary.js';

const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
const model = (text: string): Content => ({ role: 'model', parts: [{ text }] });

function options(overrides: Partial<AgentPrefixSummaryOptions>): AgentPrefixSummaryOptions {
  const sent = [user('hi'), model('hello')];
  return {
    model: new ScriptedModel({ script: [textResponse('## User goal\nhi')] }),
    request: { contents: sent, systemInstruction: 'Be brief.' },
    viewContents: [...sent, user('more')],
    fromSeq: 1,
    toSeq: 3,
    rolling: false,
    timeoutMs: 1_000,
    ...overrides,
  };
}

describe('contentsAfter', () => {
  it('gives the newer contents, a last message the view extended as a message of its own', () => {
    const sent = [user('a'), model('b'), user('c')];
    expect(contentsAfter(sent, [...sent, model('d')])).toEqual([model('d')]);
    const extended = [
      user('a'),
      model('b'),
      { role: 'user' as const, parts: [{ text: 'c' }, { text: 'e' }] },
    ];
    expect(contentsAfter(sent, [...extended, model('f')])).toEqual([user('e'), model('f')]);
    expect(contentsAfter(sent, sent)).toEqual([]);
  });

  it('is undefined when the view does not start with what was sent', () => {
    const sent = [user('a'), model('b')];
    expect(contentsAfter(sent, [user('a2'), model('b'), user('c')])).toBeUndefined();
    expect(contentsAfter(sent, [user('a'), model('B')])).toBeUndefined();
    expect(contentsAfter(sent, [user('a')])).toBeUndefined();
    expect(contentsAfter([], [user('a')])).toBeUndefined();
  });
});

describe('summarizeWithAgentPrefix', () => {
  it('labels the lines with the range and keeps the request as sent', async () => {
    const given = options({});
    const result = await summarizeWithAgentPrefix(given);
    expect('summary' in result && result.summary.content).toEqual({
      role: 'model',
      parts: [{ text: '## User goal\nhi (seq 1-3)' }],
    });
    expect('request' in result && result.request.contents.slice(0, 3)).toEqual(given.viewContents);
  });

  it('does not call a model whose window the request does not fit, or with calls left open', async () => {
    const small = new ScriptedModel({ contextWindowTokens: 50, script: [] });
    expect(await summarizeWithAgentPrefix(options({ model: small }))).toMatchObject({
      reason: 'too_long',
    });
    const open: Content = {
      role: 'model',
      parts: [{ functionCall: { id: 'c9', name: 'x', args: {} } }],
    };
    const result = await summarizeWithAgentPrefix(
      options({ viewContents: [user('hi'), model('hello'), open] }),
    );
    expect(result).toEqual({ reason: 'open_calls', detail: 'calls without a response: c9' });
    const view = await summarizeWithAgentPrefix(options({ viewContents: [user('other')] }));
    expect(view).toMatchObject({ reason: 'view_changed' });
  });

  it('turns an overflow rejection into too_long, and throws only the caller abort', async () => {
    const overflow = new ScriptedModel({
      script: [new ModelError({ kind: 'context_overflow', message: 'prompt is too long' })],
    });
    expect(await summarizeWithAgentPrefix(options({ model: overflow }))).toMatchObject({
      reason: 'too_long',
      detail: expect.stringContaining('prompt is too long'),
    });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(summarizeWithAgentPrefix(options({ signal: controller.signal }))).rejects.toThrow(
      'stop',
    );
  });
});

describe('the seq of each message', () => {
  const event = (seq: number, role: 'user' | 'model', extra: Partial<Event> = {}): Event =>
    ({
      id: `e${seq}`,
      seq,
      invocationId: 'i',
      author: role === 'user' ? 'user' : 'agent',
      timestamp: seq,
      actions: {},
      content: { role, parts: [{ text: `${seq}` }] },
      ...extra,
    }) as Event;

  it('merges runs of one role, starts with the summary, opens a model-first view', () => {
    const events = [event(5, 'user'), event(6, 'user'), event(7, 'model'), event(8, 'user')];
    expect(messageSeqsOf({ summaryRange: { fromSeq: 1, toSeq: 4 }, events })).toEqual([
      { fromSeq: 1, toSeq: 6 },
      { fromSeq: 7, toSeq: 7 },
      { fromSeq: 8, toSeq: 8 },
    ]);
    expect(messageSeqsOf({ events: [event(3, 'model'), event(4, 'user')] })).toEqual([
      { fromSeq: 3, toSeq: 3 },
      { fromSeq: 3, toSeq: 3 },
      { fromSeq: 4, toSeq: 4 },
    ]);
  });

  it('lists them in the instruction, only when the list matches the messages', async () => {
    const text = agentPrefixInstruction({
      fromSeq: 1,
      toSeq: 7,
      rolling: true,
      messageSeqs: [
        { fromSeq: 1, toSeq: 6 },
        { fromSeq: 7, toSeq: 7 },
        { fromSeq: 8, toSeq: 8 },
      ],
    });
    expect(text).toContain('from seq 1 through seq 7 (messages 1-2)');
    expect(text).toContain('(message: seq): 1: 1-6, 2: 7, 3: 8.');
    const scripted = new ScriptedModel({ script: [textResponse('## User goal\nhi')] });
    await summarizeWithAgentPrefix(
      options({ model: scripted, messageSeqs: [{ fromSeq: 1, toSeq: 1 }] }),
    );
    const sent = scripted.calls[0]?.contents.at(-1)?.parts[0]?.text ?? '';
    expect(sent).not.toContain('(message: seq)');
    expect(sent).toContain('e.g. (seq 12) or (seq 12-15):');
  });
});
