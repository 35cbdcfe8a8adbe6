/**
 * The real AI SDK providers, resolved from `provider:model` ids, talking to recorded HTTP
 * fixtures of each provider's wire format through an injected fetch.
 */
import { describe, expect, it, vi } from 'vitest';
import { ModelConfigError } from './errors.js';
import { resolveModel } from './resolve-model.js';
import { loadFixture } from './test-helpers/fixture-fetch.js';
import { connect, expectRecordedRequest, modelErrorOf } from './test-helpers/provider-checks.js';
import { travelRequest } from './test-helpers/travel-request.js';

describe('openai-compatible (Ollama, vLLM, llama.cpp)', () => {
  const modelId = 'openai-compatible:qwen3:8b';

  it('renders chat messages at the configured base URL and reads reasoning and calls back', async () => {
    const fixture = loadFixture('openai-compatible', 'tool-call');
    const { model, requests } = await connect(modelId, [fixture]);

    const response = await model.generate(travelRequest());

    expectRecordedRequest(requests[0], fixture);
    expect(requests[0]?.headers.authorization).toBeUndefined();
    expect(response.content.parts).toEqual([
      { text: 'The weather is good, so I will book the table at 19:30.', thought: true },
      {
        functionCall: {
          id: 'call_9x2kq1rl',
          name: 'book_table',
          args: { guests: 2, restaurant: 'Chez Janou', time: '19:30' },
        },
      },
    ]);
    expect(response.finishReason).toBe('tool-calls');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 201,
      candidatesTokenCount: 38,
      totalTokenCount: 239,
    });
    // Ollama tags keep their colon; an unknown local model has no known window.
    expect(model.modelId).toBe('openai-compatible:qwen3:8b');
    expect(model.contextWindowTokens).toBeUndefined();
  });

  it('sends ORRERY_OPENAI_COMPATIBLE_API_KEY as a bearer token and reads a plain answer', async () => {
    const env = {
      ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'http://gpu-box:8000/v1/',
      ORRERY_OPENAI_COMPATIBLE_API_KEY: 'vllm-token',
    };
    const { model, requests } = await connect(
      'openai-compatible:Qwen/Qwen2.5-7B-Instruct',
      [loadFixture('openai-compatible', 'text')],
      env,
    );
    const response = await model.generate(travelRequest());
    expect(requests[0]?.url).toBe('http://gpu-box:8000/v1/chat/completions');
    expect(requests[0]?.headers.authorization).toBe('Bearer vllm-token');
    expect(response.content.parts).toEqual([
      { text: 'It is 21 °C and clear in Paris. Your table at Chez Janou is booked for 19:30.' },
    ]);
    expect(response.finishReason).toBe('stop');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 312,
      candidatesTokenCount: 25,
      totalTokenCount: 337,
    });
  });

  it("turns vLLM's and llama.cpp's overflow 400s into context_overflow", async () => {
    const { model } = await connect(modelId, [
      loadFixture('openai-compatible', 'overflow'),
      loadFixture('openai-compatible', 'overflow-llama-cpp'),
    ]);
    const vllm = await modelErrorOf(model.generate(travelRequest()));
    expect(vllm.kind).toBe('context_overflow');
    expect(vllm.statusCode).toBe(400);
    const llamaCpp = await modelErrorOf(model.generate(travelRequest()));
    expect(llamaCpp.kind).toBe('context_overflow');
  });

  it('turns a 429 with an HTTP-date retry-after into retryable', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-09-10T16:20:00Z'));
    const { model } = await connect(modelId, [loadFixture('openai-compatible', 'rate-limit')]);
    const error = await modelErrorOf(model.generate(travelRequest()));
    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBe(30_000);
  });

  it('names ORRERY_OPENAI_COMPATIBLE_BASE_URL when it is missing or not a URL', async () => {
    const missing = await resolveModel({ modelId, env: {} }).catch((e) => e);
    expect(ModelConfigError.isInstance(missing)).toBe(true);
    expect(missing.variable).toBe('ORRERY_OPENAI_COMPATIBLE_BASE_URL');
    expect(missing.message).toContain('ORRERY_OPENAI_COMPATIBLE_BASE_URL is not set');

    const invalid = await resolveModel({
      modelId,
      env: { ORRERY_OPENAI_COMPATIBLE_BASE_URL: 'localhost:11434' },
    }).catch((e) => e);
    expect(ModelConfigError.isInstance(invalid)).toBe(true);
    expect(invalid.value).toBe('localhost:11434');
    expect(invalid.message).toContain("'localhost:11434'");
  });
});
