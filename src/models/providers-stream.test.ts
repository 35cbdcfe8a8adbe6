/**
 * The real AI SDK providers streaming (`Model.stream` over `doStream`), fed hand-written
 * Server-Sent Events in each provider's wire format through an injected fetch.
 */
import { describe, expect, it } from 'vitest';
import { resolveModel } from './resolve-model.js';
import { type Fixture, fixtureFetch, loadFixture } from './test-helpers/fixture-fetch.js';
import { testEnv, travelRequest } from './test-helpers/travel-request.js';
import type { Model, ModelStreamPart } from './types.js';

async function connect(modelId: string, fixtures: Fixture[], env: Record<string, string>) {
  const { fetch, requests } = fixtureFetch(...fixtures);
  const model = await resolveModel({ modelId, env, fetch });
  return { model, requests };
}

async function streamAll(model: Model): Promise<ModelStreamPart[]> {
  if (!model.stream) throw new Error(`${model.modelId} cannot stream`);
  const parts: ModelStreamPart[] = [];
  for await (const part of model.stream(travelRequest())) parts.push(part);
  return parts;
}

function deltas(parts: ModelStreamPart[], type: 'text-delta' | 'reasoning-delta'): string[] {
  return parts.flatMap((part) => (part.type === type ? [part.text] : []));
}

describe('openai Chat Completions, streamed', () => {
  it('yields the text deltas, the call whole, and a finish response with usage', async () => {
    const fixture = loadFixture('openai', 'chat-stream-tool-call');
    const env = { ...testEnv, ORRERY_OPENAI_API: 'chat' };
    const { model, requests } = await connect('openai:gpt-4o', [fixture], env);

    const parts = await streamAll(model);

    expect(requests[0]?.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(requests[0]?.body).toMatchObject(fixture.request?.body as Record<string, unknown>);
    expect(deltas(parts, 'text-delta')).toEqual([
      "It's",
      ' sunny',
      ' and',
      ' 21',
      '°C',
      ' in',
      ' Paris',
      '.',
      ' Booking',
      ' now',
      '.',
    ]);
    const call = {
      id: 'call_Qp7Wm2Xz9Ls4Nd8Vb1Rt6Yc3',
      name: 'book_table',
      args: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
    };
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', functionCall: call },
    ]);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      response: {
        content: {
          role: 'model',
          parts: [{ text: "It's sunny and 21°C in Paris. Booking now." }, { functionCall: call }],
        },
        finishReason: 'tool-calls',
        // From the stream's response-metadata part (the recorded wire's id and model).
        responseId: 'chatcmpl-CEq2p4XcW8yN1vR5tK9mJ3hL6gF2',
        responseModel: 'gpt-4o-2024-08-06',
        usageMetadata: {
          promptTokenCount: 139,
          candidatesTokenCount: 41,
          totalTokenCount: 180,
          cachedContentTokenCount: 0,
        },
      },
    });
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
  });
});

describe('anthropic Messages, streamed', () => {
  it('ends with the response generate gives for the same answer, signature included', async () => {
    const streamed = await connect(
      'anthropic:claude-sonnet-4-5',
      [loadFixture('anthropic', 'stream-tool-call')],
      testEnv,
    );
    const whole = await connect(
      'anthropic:claude-sonnet-4-5',
      [loadFixture('anthropic', 'tool-call')],
      testEnv,
    );

    const parts = await streamAll(streamed.model);
    const generated = await whole.model.generate(travelRequest());

    expect(streamed.requests[0]?.body).toMatchObject({ stream: true });
    expect(deltas(parts, 'reasoning-delta')).toEqual([
      'Weather is fine;',
      ' now book',
      ' the table.',
    ]);
    expect(deltas(parts, 'text-delta')).toEqual([
      'It is 21 °C',
      ' and clear.',
      ' Booking your',
      ' table now.',
    ]);
    const finish = parts.at(-1);
    expect(finish?.type).toBe('finish');
    if (finish?.type !== 'finish') return;
    expect(finish.response.content).toEqual(generated.content);
    expect(finish.response.content.parts[0]?.thoughtSignature).toBe('ErUBCkYIBxgCKkBsignatureE');
    expect(finish.response.finishReason).toBe('tool-calls');
    expect(finish.response.usageMetadata).toMatchObject({
      promptTokenCount: 472,
      candidatesTokenCount: 89,
      totalTokenCount: 561,
    });
  });

  it('a rate limit on the request fails the stream with a retryable ModelError', async () => {
    const { model } = await connect(
      'anthropic:claude-sonnet-4-5',
      [loadFixture('anthropic', 'rate-limit')],
      testEnv,
    );
    const error = await streamAll(model).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ModelError', kind: 'retryable', statusCode: 429 });
  });
});
