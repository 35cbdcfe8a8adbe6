import { describe, expect, it } from 'vitest';
import { plainRunRequest } from './plain-run-request.js';
import { RunRequestSchema } from './request-body.js';

const plain = {
  appName: 'demo',
  userId: 'alice',
  sessionId: 's1',
  newMessage: { role: 'user', parts: [{ text: 'hello' }, { text: '' }] },
};

describe('plainRunRequest', () => {
  it.each([
    plain,
    { ...plain, newMessage: { parts: [{ text: 'no role' }] } },
    { ...plain, streaming: true },
    { ...plain, streaming: false, stateDelta: null },
  ])('accepts what zod accepts unchanged: %j', (input) => {
    const body = JSON.parse(JSON.stringify(input));
    expect(plainRunRequest(body)).toBe(body);
    expect(RunRequestSchema.parse(structuredClone(body))).toEqual(body);
  });

  it.each([
    null,
    [],
    'text',
    { ...plain, appName: '' },
    { ...plain, userId: 7 },
    { ...plain, sessionId: undefined },
    { ...plain, extra: 1 },
    { ...plain, streaming: 'yes' },
    { ...plain, stateDelta: {} },
    { ...plain, stateDelta: { k: 1 } },
    { ...plain, newMessage: { role: 'model', parts: [{ text: 'x' }] } },
    { ...plain, newMessage: { role: 'user', parts: [] } },
    { ...plain, newMessage: { role: 'user', parts: [{ text: 1 }] } },
    { ...plain, newMessage: { role: 'user', parts: [{ text: 'x', thought: true }] } },
    { ...plain, newMessage: { role: 'user', parts: [{ functionResponse: { name: 'f' } }] } },
    { ...plain, newMessage: { role: 'user', parts: [{ text: 'x' }], extra: 1 } },
    { ...plain, newMessage: { role: 'user', parts: [null] } },
  ])('leaves anything else to zod: %j', (input) => {
    expect(
      plainRunRequest(input === null ? null : JSON.parse(JSON.stringify(input))),
    ).toBeUndefined();
  });
});
