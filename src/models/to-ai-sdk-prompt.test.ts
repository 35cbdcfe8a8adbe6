import { describe, expect, it } from 'vitest';
import type { Content } from '../events/types.js';
import { toAiSdkPrompt } from './to-ai-sdk-prompt.js';

const call: Content = {
  role: 'model',
  parts: [{ functionCall: { id: 'deploy-1', name: 'deploy', args: { service: 'api' } } }],
};
const response = (status: string): Content => ({
  role: 'user',
  parts: [{ functionResponse: { id: 'deploy-1', name: 'deploy', response: { status } } }],
});

describe('toAiSdkPrompt: a long-running call answered twice', () => {
  it('sends the first response as the tool result and a later one as user text', () => {
    // Long-running tool (docs/architecture.md#the-safe-split-and-the-ledger): an intermediate
    // response now, the final one turns later.
    const prompt = toAiSdkPrompt({
      contents: [
        { role: 'user', parts: [{ text: 'deploy the api' }] },
        call,
        response('started'),
        { role: 'model', parts: [{ text: 'The deploy has started.' }] },
        response('finished'),
      ],
    });
    expect(prompt.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    // Providers reject a tool result that does not follow its call (OpenAI: 400 "messages with
    // role 'tool' must be a response to a preceding message with 'tool_calls'").
    const toolResults = prompt.flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    );
    expect(toolResults).toHaveLength(1);
    const last = prompt.at(-1)!;
    expect(last.content).toEqual([
      {
        type: 'text',
        text: 'Function response (deploy, call deploy-1): {"status":"finished"}',
      },
    ]);
  });

  it('does not send two results for one call when both responses are in one turn', () => {
    const prompt = toAiSdkPrompt({
      contents: [
        { role: 'user', parts: [{ text: 'deploy' }] },
        call,
        {
          role: 'user',
          parts: [...response('started').parts, ...response('finished').parts],
        },
      ],
    });
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(prompt[2]!.content).toHaveLength(1);
  });
});
