import { describe, expect, it } from 'vitest';
import { toAdkSessionJson } from '../events/adk-json.js';
import { importAdk } from './adk.js';
import { ImportError } from './errors.js';
import { importOpenAiChat } from './openai-chat.js';

describe('importAdk', () => {
  it('reads an ADK session back into the same events and state', () => {
    const source = importOpenAiChat(
      [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'f', content: 'ok' },
      ],
      { startTime: 100 },
    );
    for (const casing of ['camel', 'snake'] as const) {
      const json = JSON.stringify(
        toAdkSessionJson({
          session: { appName: 'a', userId: 'u', sessionId: 's', state: { k: 1 } },
          events: source.events,
          casing,
        }),
      );
      const result = importAdk(json);
      expect(result.meta).toMatchObject({ format: 'adk', sourceId: 's', state: { k: 1 } });
      expect(result.events).toEqual(source.events);
      expect(result.repairs).toEqual([]);
    }
  });

  it('reports a bad event as an ImportError naming the field', () => {
    const bad = JSON.stringify({
      id: 's',
      events: [{ id: 'e', author: 'user', invocationId: 'i', timestamp: 'soon', actions: {} }],
    });
    expect(() => importAdk(bad)).toThrow(ImportError);
    expect(() => importAdk(bad)).toThrow(/events\[0\]\.timestamp/);
  });
});
