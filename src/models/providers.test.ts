/**
 * The real AI SDK providers, resolved from `provider:model` ids, talking to recorded HTTP
 * fixtures of each provider's wire format through an injected fetch.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Content } from '../events/types.js';
import { ModelConfigError } from './errors.js';
import { resolveModel } from './resolve-model.js';
import { loadFixture } from './test-helpers/fixture-fetch.js';
import { connect, expectRecordedRequest, modelErrorOf } from './test-helpers/provider-checks.js';
import { testEnv, travelRequest } from './test-helpers/travel-request.js';

/** The travel conversation continued with the model's answer and responses to its calls. */
function continued(answer: Content): ReturnType<typeof travelRequest> {
  const request = travelRequest();
  const calls = answer.parts.flatMap((part) => (part.functionCall ? [part.functionCall] : []));
  request.contents.push(answer, {
    role: 'user',
    parts: calls.map((call) => ({
      functionResponse: { id: call.id, name: call.name, response: { ok: true } },
    })),
  });
  return request;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('google (Gemini generateContent)', () => {
  const modelId = 'google:gemini-2.5-flash';

  it('renders calls, responses, tools and signatures in Gemini format and reads parallel calls back', async () => {
    const fixture = loadFixture('google', 'tool-call');
    const { model, requests } = await connect(modelId, [fixture]);

    const response = await model.generate(travelRequest());

    expectRecordedRequest(requests[0], fixture);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.content.role).toBe('model');
    expect(response.content.parts).toEqual([
      {
        functionCall: {
          id: expect.any(String),
          name: 'book_table',
          args: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
        },
        thoughtSignature: 'EpYCCpMCAdHtim9signatureC',
      },
      { functionCall: { id: expect.any(String), name: 'get_weather', args: { city: 'Lyon' } } },
    ]);
    const [first, second] = response.content.parts;
    expect(first?.functionCall?.id).not.toBe(second?.functionCall?.id);
    // Gemini's candidatesTokenCount excludes thoughts; the AI SDK's output count includes them.
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 183,
      candidatesTokenCount: 31 + 48,
      totalTokenCount: 262,
    });
    expect(model.contextWindowTokens).toBe(1_048_576);
    expect(model.modelId).toBe(modelId);
  });

  it('sends the signatures and call ids of an answer back with the next request', async () => {
    const { model, requests } = await connect(modelId, [
      loadFixture('google', 'tool-call'),
      loadFixture('google', 'text'),
    ]);
    const first = await model.generate(travelRequest());

    const second = await model.generate(continued(first.content));

    const [bookCall, weatherCall] = first.content.parts.map((part) => part.functionCall);
    const body = requests[1]?.body as { contents: Array<{ role: string; parts: unknown[] }> };
    expect(body.contents.slice(3)).toEqual([
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: bookCall?.id, name: 'book_table', args: bookCall?.args },
            thoughtSignature: 'EpYCCpMCAdHtim9signatureC',
          },
          { functionCall: { id: weatherCall?.id, name: 'get_weather', args: { city: 'Lyon' } } },
        ],
      },
      {
        // Both responses in one turn: Gemini wants as many responses as the calls it answers.
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: bookCall?.id,
              name: 'book_table',
              response: { name: 'book_table', content: { ok: true } },
            },
          },
          {
            functionResponse: {
              id: weatherCall?.id,
              name: 'get_weather',
              response: { name: 'get_weather', content: { ok: true } },
            },
          },
        ],
      },
    ]);
    expect(second.content.parts).toEqual([
      { text: 'The user wants a short answer.', thought: true },
      {
        text: 'It is 21 °C and clear in Paris. Your table at Chez Janou is booked for 19:30.',
        thoughtSignature: 'CiQBjz1rX0signatureD',
      },
    ]);
    expect(second.finishReason).toBe('stop');
    expect(second.usageMetadata).toEqual({
      promptTokenCount: 1254,
      candidatesTokenCount: 22 + 34,
      totalTokenCount: 1310,
      cachedContentTokenCount: 1024,
    });
  });

  it('turns the 400 INVALID_ARGUMENT token overflow into context_overflow', async () => {
    const { model } = await connect(modelId, [loadFixture('google', 'overflow')]);
    const error = await modelErrorOf(model.generate(travelRequest()));
    expect(error.kind).toBe('context_overflow');
    expect(error.statusCode).toBe(400);
    expect(error.modelId).toBe(modelId);
    expect(error.message).toContain('exceeds the maximum number of tokens allowed (1048576)');
  });

  it('turns a 429 RESOURCE_EXHAUSTED into retryable with the RetryInfo delay', async () => {
    const { model } = await connect(modelId, [loadFixture('google', 'rate-limit')]);
    const error = await modelErrorOf(model.generate(travelRequest()));
    expect(error.kind).toBe('retryable');
    expect(error.statusCode).toBe(429);
    expect(error.retryAfterMs).toBe(37_000);
  });

  it('accepts GOOGLE_GENERATIVE_AI_API_KEY and names both variables when neither is set', async () => {
    const { model, requests } = await connect(modelId, [loadFixture('google', 'text')], {
      GOOGLE_GENERATIVE_AI_API_KEY: 'second-key',
    });
    await model.generate(travelRequest());
    expect(requests[0]?.headers['x-goog-api-key']).toBe('second-key');

    const error = await resolveModel({ modelId, env: { OPENAI_API_KEY: 'x' } }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('GEMINI_API_KEY');
    expect(error.message).toContain('GEMINI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY');
  });
});

describe('openai (Responses API, the default of openai:<model>)', () => {
  const modelId = 'openai:gpt-4.1';

  it('renders the call and its output as input items and reads the function call back', async () => {
    const fixture = loadFixture('openai', 'tool-call');
    const { model, requests } = await connect(modelId, [fixture]);

    const response = await model.generate(travelRequest());

    expectRecordedRequest(requests[0], fixture);
    expect(response.content.parts).toEqual([
      {
        functionCall: {
          id: 'call_Q7mZp3LrT9vX1yB4nK8sD2fH',
          name: 'book_table',
          args: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
        },
      },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 142,
      candidatesTokenCount: 27,
      totalTokenCount: 169,
    });
    expect(model.contextWindowTokens).toBe(1_000_000);
  });

  it('reads a normal answer with cached input tokens', async () => {
    const { model } = await connect(modelId, [loadFixture('openai', 'text')]);
    const response = await model.generate(travelRequest());
    expect(response.content.parts).toEqual([
      { text: 'It is 21 °C and clear in Paris. Your table at Chez Janou is booked for 19:30.' },
    ]);
    expect(response.finishReason).toBe('stop');
    expect(response.usageMetadata).toEqual({
      promptTokenCount: 1311,
      candidatesTokenCount: 24,
      totalTokenCount: 1335,
      cachedContentTokenCount: 1152,
    });
  });

  it('turns context_length_exceeded into context_overflow', async () => {
    const { model } = await connect(modelId, [loadFixture('openai', 'overflow')]);
    const error = await modelErrorOf(model.generate(travelRequest()));
    expect(error.kind).toBe('context_overflow');
    expect(error.statusCode).toBe(400);
  });

  it('turns a 429 into retryable, preferring retry-after-ms', async () => {
    const { model } = await connect(modelId, [loadFixture('openai', 'rate-limit')]);
    const error = await modelErrorOf(model.generate(travelRequest()));
    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBe(1680);
  });

  it('uses Chat Completions with ORRERY_OPENAI_API=chat', async () => {
    const fixture = loadFixture('openai', 'chat-tool-call');
    const env = { ...testEnv, ORRERY_OPENAI_API: 'chat' };
    const { model, requests } = await connect('openai:gpt-4o', [fixture], env);

    const response = await model.generate(travelRequest());

    expectRecordedRequest(requests[0], fixture);
    expect(response.content.parts).toEqual([
      {
        functionCall: {
          id: 'call_Lm4Nq8Rt2Vx6Zb0Dc3Fg7Hj1',
          name: 'book_table',
          args: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
        },
      },
    ]);
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 139,
      candidatesTokenCount: 29,
      totalTokenCount: 168,
    });
    expect(model.contextWindowTokens).toBe(128_000);

    const overflow = await connect('openai:gpt-4o', [loadFixture('openai', 'chat-overflow')], env);
    const error = await modelErrorOf(overflow.model.generate(travelRequest()));
    expect(error.kind).toBe('context_overflow');
  });

  it('honours OPENAI_BASE_URL and rejects an unknown ORRERY_OPENAI_API', async () => {
    const env = { ...testEnv, OPENAI_BASE_URL: 'https://proxy.example.com/v1' };
    const { model, requests } = await connect(modelId, [loadFixture('openai', 'text')], env);
    await model.generate(travelRequest());
    expect(requests[0]?.url).toBe('https://proxy.example.com/v1/responses');

    const error = await resolveModel({
      modelId,
      env: { ...testEnv, ORRERY_OPENAI_API: 'completions' },
    }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('ORRERY_OPENAI_API');
    expect(error.message).toContain("'completions'");
  });

  it('names OPENAI_API_KEY when it is missing', async () => {
    const error = await resolveModel({ modelId, env: { GEMINI_API_KEY: 'x' } }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('OPENAI_API_KEY');
    expect(error.message).toContain('set OPENAI_API_KEY');
  });
});

describe('anthropic (Messages API)', () => {
  const modelId = 'anthropic:claude-sonnet-4-5';

  it('renders tool_use, tool_result and signed thinking, and reads them back', async () => {
    const fixture = loadFixture('anthropic', 'tool-call');
    const { model, requests } = await connect(modelId, [fixture]);

    const response = await model.generate(travelRequest());

    expectRecordedRequest(requests[0], fixture);
    expect(response.content.parts).toEqual([
      {
        text: 'Weather is fine; now book the table.',
        thought: true,
        thoughtSignature: 'ErUBCkYIBxgCKkBsignatureE',
      },
      { text: 'It is 21 °C and clear. Booking your table now.' },
      {
        functionCall: {
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'book_table',
          args: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
        },
      },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 472,
      candidatesTokenCount: 89,
      totalTokenCount: 561,
    });
    expect(model.contextWindowTokens).toBe(200_000);
  });

  it('sends the thinking signature back and reads cache reads as cached tokens', async () => {
    const { model, requests } = await connect(modelId, [
      loadFixture('anthropic', 'tool-call'),
      loadFixture('anthropic', 'text'),
    ]);
    const first = await model.generate(travelRequest());

    const second = await model.generate(continued(first.content));

    const body = requests[1]?.body as { messages: Array<{ role: string; content: unknown[] }> };
    expect(body.messages[3]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'Weather is fine; now book the table.',
          signature: 'ErUBCkYIBxgCKkBsignatureE',
        },
        { type: 'text', text: 'It is 21 °C and clear. Booking your table now.' },
        {
          type: 'tool_use',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'book_table',
          input: { restaurant: 'Chez Janou', time: '19:30', guests: 2 },
        },
      ],
    });
    expect(body.messages[4]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
          content: '{"ok":true}',
        },
      ],
    });
    expect(second.content.parts).toEqual([
      { text: 'It is 21 °C and clear in Paris. Your table at Chez Janou is booked for 19:30.' },
    ]);
    expect(second.finishReason).toBe('stop');
    // Anthropic's input_tokens leaves out cache reads; the prompt total includes them.
    expect(second.usageMetadata).toEqual({
      promptTokenCount: 58 + 1408,
      candidatesTokenCount: 26,
      totalTokenCount: 58 + 1408 + 26,
      cachedContentTokenCount: 1408,
    });
  });

  it('turns "prompt is too long" and 413 request_too_large into context_overflow', async () => {
    const { model } = await connect(modelId, [
      loadFixture('anthropic', 'overflow'),
      loadFixture('anthropic', 'request-too-large'),
    ]);
    const tooLong = await modelErrorOf(model.generate(travelRequest()));
    expect(tooLong.kind).toBe('context_overflow');
    expect(tooLong.message).toContain('prompt is too long');
    const tooLarge = await modelErrorOf(model.generate(travelRequest()));
    expect(tooLarge.kind).toBe('context_overflow');
    expect(tooLarge.statusCode).toBe(413);
  });

  it('turns a 429 with retry-after seconds and a 529 overload into retryable', async () => {
    const { model } = await connect(modelId, [
      loadFixture('anthropic', 'rate-limit'),
      loadFixture('anthropic', 'overloaded'),
    ]);
    const limited = await modelErrorOf(model.generate(travelRequest()));
    expect(limited.kind).toBe('retryable');
    expect(limited.retryAfterMs).toBe(17_000);
    const overloaded = await modelErrorOf(model.generate(travelRequest()));
    expect(overloaded.kind).toBe('retryable');
    expect(overloaded.statusCode).toBe(529);
    expect(overloaded.retryAfterMs).toBeUndefined();
  });

  it('names ANTHROPIC_API_KEY when it is missing', async () => {
    const error = await resolveModel({ modelId, env: {} }).catch((e) => e);
    expect(ModelConfigError.isInstance(error)).toBe(true);
    expect(error.variable).toBe('ANTHROPIC_API_KEY');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });
});
