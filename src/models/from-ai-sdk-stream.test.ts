import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { fromAiSdk } from './ai-sdk-model.js';
import { ModelError } from './errors.js';
import type { ModelRequest, ModelStreamPart } from './types.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 4, text: 4, reasoning: undefined },
};
const finish: LanguageModelV3StreamPart = {
  type: 'finish',
  usage,
  finishReason: { unified: 'stop', raw: 'stop' },
};
const request: ModelRequest = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };

/**
 * A v3 model whose `doStream` serves `parts` one read at a time; `hold` leaves the stream open
 * after them (as a slow provider would). Records whether the stream was cancelled.
 */
function streamingModel(parts: LanguageModelV3StreamPart[], options: { hold?: boolean } = {}) {
  const state = { cancelled: false };
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'fake.chat',
    modelId: 'fake-1',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('not used');
    },
    async doStream() {
      const queue = [...parts];
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          pull(controller) {
            const next = queue.shift();
            if (next !== undefined) controller.enqueue(next);
            else if (!options.hold) controller.close();
          },
          cancel() {
            state.cancelled = true;
          },
        }),
      };
    },
  };
  return { model: fromAiSdk(model), state };
}

async function collect(iterable: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of iterable) parts.push(part);
  return parts;
}

describe('fromAiSdk stream', () => {
  it('joins deltas into the blocks they belong to, in the order the blocks started', async () => {
    const { model } = streamingModel([
      { type: 'stream-start', warnings: [] },
      { type: 'reasoning-start', id: 'r' },
      { type: 'text-start', id: 't' },
      { type: 'reasoning-delta', id: 'r', delta: 'think' },
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'text-delta', id: 't', delta: '' },
      { type: 'text-delta', id: 't', delta: 'lo' },
      {
        type: 'reasoning-end',
        id: 'r',
        providerMetadata: { google: { thoughtSignature: 'sig-1' } },
      },
      { type: 'text-end', id: 't' },
      finish,
    ]);

    const parts = await collect(model.stream!(request));

    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      {
        type: 'finish',
        response: {
          content: {
            role: 'model',
            parts: [{ text: 'think', thought: true, thoughtSignature: 'sig-1' }, { text: 'Hello' }],
          },
          finishReason: 'stop',
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
        },
      },
    ]);
  });

  it('an error part mid-stream fails with a classified ModelError after the parts before it', async () => {
    const { model } = streamingModel([
      { type: 'text-delta', id: 't', delta: 'partial' },
      {
        type: 'error',
        error: new APICallError({
          message: 'Overloaded',
          url: 'https://api.example.com',
          requestBodyValues: {},
          statusCode: 529,
          isRetryable: true,
        }),
      },
    ]);
    const seen: ModelStreamPart[] = [];
    const error = await (async () => {
      for await (const part of model.stream!(request)) seen.push(part);
    })().catch((caught: unknown) => caught);

    expect(seen).toEqual([{ type: 'text-delta', text: 'partial' }]);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'retryable', statusCode: 529 });
  });

  it('a stream that ends without finish is a retryable ModelError', async () => {
    const { model } = streamingModel([{ type: 'text-delta', id: 't', delta: 'cut' }]);
    const error = await collect(model.stream!(request)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ModelError', kind: 'retryable' });
    expect((error as Error).message).toContain('without a finish part');
  });

  it('an abort while waiting for the next part rejects with its reason and cancels the stream', async () => {
    const { model, state } = streamingModel([{ type: 'text-delta', id: 't', delta: 'one' }], {
      hold: true,
    });
    const controller = new AbortController();
    const iterator = model.stream!(request, { signal: controller.signal })[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'text-delta', text: 'one' },
    });
    const pending = iterator.next();
    controller.abort(new Error('stop now'));

    await expect(pending).rejects.toThrow('stop now');
    expect(state.cancelled).toBe(true);
  });

  it('a caller that stops early cancels the provider stream', async () => {
    const { model, state } = streamingModel(
      [
        { type: 'text-delta', id: 't', delta: 'one' },
        { type: 'text-delta', id: 't', delta: 'two' },
      ],
      { hold: true },
    );
    for await (const part of model.stream!(request)) {
      expect(part).toEqual({ type: 'text-delta', text: 'one' });
      break;
    }
    expect(state.cancelled).toBe(true);
  });
});
