import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../events/errors.js';
import { fromAiSdk } from './ai-sdk-model.js';
import { ModelError } from './errors.js';

const noUsage = {
  inputTokens: {
    total: undefined,
    noCache: undefined,
    cacheRead: undefined,
    cacheWrite: undefined,
  },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/** A v3 model that records its calls and answers from a list (errors are thrown). */
function fakeModel(options: {
  provider?: string;
  modelId?: string;
  answers: Array<Partial<LanguageModelV3GenerateResult> | Error>;
}): LanguageModelV3 & { calls: LanguageModelV3CallOptions[] } {
  const calls: LanguageModelV3CallOptions[] = [];
  const answers = [...options.answers];
  return {
    specificationVersion: 'v3',
    provider: options.provider ?? 'fake.chat',
    modelId: options.modelId ?? 'fake-1',
    supportedUrls: {},
    calls,
    async doGenerate(callOptions) {
      calls.push(callOptions);
      const answer = answers.shift();
      if (answer === undefined) throw new Error('unexpected call');
      if (answer instanceof Error) throw answer;
      return {
        content: [],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: noUsage,
        warnings: [],
        ...answer,
      };
    },
    async doStream() {
      throw new Error('not used');
    },
  };
}

const textAnswer = (content: LanguageModelV3Content[]) => ({ content });

describe('fromAiSdk: orrery contents to the AI SDK prompt', () => {
  it('maps system, user, model and function-response turns, merging a turn split across contents', async () => {
    const model = fakeModel({ answers: [textAnswer([{ type: 'text', text: 'ok' }])] });
    await fromAiSdk(model).generate({
      systemInstruction: 'Be brief.',
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look at this.' },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { text: 'thinking', thought: true },
            { text: '' },
            { functionCall: { id: 'a', name: 'first', args: { n: 1 } } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { id: 'b', name: 'second', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'a', name: 'first', response: { result: 1 } } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'b', name: 'second', response: { error: 'boom' } } },
            { text: 'And now?' },
          ],
        },
        { role: 'model', parts: [] },
      ],
      temperature: 0.2,
      maxOutputTokens: 100,
    });

    const call = model.calls[0];
    expect(call?.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this.' },
          { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'first', input: { n: 1 } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'second', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'first',
            output: { type: 'json', value: { result: 1 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'second',
            output: { type: 'json', value: { error: 'boom' } },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
    ]);
    expect(call?.temperature).toBe(0.2);
    expect(call?.maxOutputTokens).toBe(100);
    expect(call?.tools).toBeUndefined();
    expect(call?.toolChoice).toBeUndefined();
  });

  it('declares tools as JSON-schema function tools with automatic choice', async () => {
    const model = fakeModel({ answers: [textAnswer([])] });
    const parameters = { type: 'object', properties: { q: { type: 'string' } } };
    await fromAiSdk(model, { providerOptions: { fake: { flag: true } } }).generate({
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      tools: [{ name: 'search', description: 'Search the web.', parameters }],
    });
    expect(model.calls[0]?.tools).toEqual([
      { type: 'function', name: 'search', description: 'Search the web.', inputSchema: parameters },
    ]);
    expect(model.calls[0]?.toolChoice).toEqual({ type: 'auto' });
    expect(model.calls[0]?.providerOptions).toEqual({ fake: { flag: true } });
  });

  it.each([
    [
      'google.generative-ai',
      { google: { thoughtSignature: 'sig' } },
      { google: { thoughtSignature: 'sig' } },
    ],
    [
      'google.vertex.chat',
      { google: { thoughtSignature: 'sig' } },
      { google: { thoughtSignature: 'sig' } },
    ],
    ['anthropic.messages', { anthropic: { signature: 'sig' } }, undefined],
    ['openai.responses', undefined, undefined],
  ])(
    'routes thought signatures to %s only in its own format',
    async (provider, onThought, onCall) => {
      const model = fakeModel({ provider, answers: [textAnswer([])] });
      await fromAiSdk(model).generate({
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          {
            role: 'model',
            parts: [
              { text: 'hmm', thought: true, thoughtSignature: 'sig' },
              { functionCall: { id: 'c', name: 'f', args: {} }, thoughtSignature: 'sig' },
            ],
          },
        ],
      });
      const assistant = model.calls[0]?.prompt[1];
      expect(assistant?.role).toBe('assistant');
      const [thought, call] = (assistant?.content ?? []) as Array<{ providerOptions?: unknown }>;
      expect(thought?.providerOptions).toEqual(onThought);
      expect(call?.providerOptions).toEqual(onCall);
    },
  );

  it('rejects a function call in a user content as a fatal error naming the part', async () => {
    const model = fakeModel({ answers: [] });
    const error = await fromAiSdk(model, { modelId: 'fake:1' })
      .generate({
        contents: [
          {
            role: 'user',
            parts: [{ text: 'x' }, { functionCall: { id: 'c', name: 'f', args: {} } }],
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).kind).toBe('fatal');
    expect((error as ModelError).message).toContain('contents[0].parts[1]');
    expect(InvalidEventError.isInstance((error as ModelError).cause)).toBe(true);
    expect(model.calls).toHaveLength(0);
  });
});

describe('fromAiSdk: AI SDK results to orrery responses', () => {
  it('maps text, reasoning, calls and files; skips provider-executed tools and sources', async () => {
    const model = fakeModel({
      answers: [
        {
          content: [
            { type: 'reasoning', text: '' },
            {
              type: 'reasoning',
              text: 'plan',
              providerMetadata: { google: { thoughtSignature: 's1' } },
            },
            { type: 'text', text: '' },
            { type: 'text', text: 'Answer.' },
            { type: 'tool-call', toolCallId: 't1', toolName: 'lookup', input: '{"id":7}' },
            { type: 'tool-call', toolCallId: 't2', toolName: 'noargs', input: '' },
            { type: 'tool-call', toolCallId: 't3', toolName: 'bare', input: '[1,2]' },
            {
              type: 'tool-call',
              toolCallId: 's',
              toolName: 'web_search',
              input: '{}',
              providerExecuted: true,
            },
            { type: 'file', mediaType: 'image/png', data: new Uint8Array([1, 2, 3]) },
            { type: 'source', sourceType: 'url', id: 'x', url: 'https://example.com' },
          ],
          finishReason: { unified: 'tool-calls', raw: 'STOP' },
          usage: {
            inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: undefined },
            outputTokens: { total: 20, text: 15, reasoning: 5 },
          },
        },
      ],
    });
    const response = await fromAiSdk(model).generate({
      contents: [{ role: 'user', parts: [{ text: 'go' }] }],
    });
    expect(response).toEqual({
      content: {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 's1' },
          { text: 'Answer.' },
          { functionCall: { id: 't1', name: 'lookup', args: { id: 7 } } },
          { functionCall: { id: 't2', name: 'noargs', args: {} } },
          { functionCall: { id: 't3', name: 'bare', args: { value: [1, 2] } } },
          { inlineData: { mimeType: 'image/png', data: 'AQID' } },
        ],
      },
      usageMetadata: {
        promptTokenCount: 100,
        candidatesTokenCount: 20,
        totalTokenCount: 120,
        cachedContentTokenCount: 40,
      },
      finishReason: 'tool-calls',
    });
  });

  it('leaves usage out when the provider reports none, and keeps an empty answer', async () => {
    const model = fakeModel({ answers: [{ finishReason: { unified: 'length', raw: 'MAX' } }] });
    const response = await fromAiSdk(model).generate({ contents: [] });
    expect(response).toEqual({ content: { role: 'model', parts: [] }, finishReason: 'length' });
  });

  it('fails with a fatal ModelError when call arguments are not JSON', async () => {
    const model = fakeModel({
      answers: [
        textAnswer([{ type: 'tool-call', toolCallId: 't', toolName: 'lookup', input: '{"id":' }]),
      ],
    });
    const error = await fromAiSdk(model, { modelId: 'fake:1' })
      .generate({ contents: [] })
      .catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).kind).toBe('fatal');
    expect((error as ModelError).message).toContain("'lookup'");
  });
});

describe('fromAiSdk: identity, errors and aborts', () => {
  it('derives the model id and the known context window, both overridable', () => {
    const gemini = fakeModel({
      provider: 'google.generative-ai',
      modelId: 'gemini-2.5-pro',
      answers: [],
    });
    expect(fromAiSdk(gemini).modelId).toBe('google:gemini-2.5-pro');
    expect(fromAiSdk(gemini).contextWindowTokens).toBe(1_048_576);
    const custom = fromAiSdk(gemini, { modelId: 'mine', contextWindowTokens: 32_000 });
    expect(custom.modelId).toBe('mine');
    expect(custom.contextWindowTokens).toBe(32_000);
    expect(fromAiSdk(fakeModel({ answers: [] })).contextWindowTokens).toBeUndefined();
  });

  it('classifies provider errors and passes the abort signal to the provider', async () => {
    const overflow = new APICallError({
      message: 'prompt is too long: 208310 tokens > 200000 maximum',
      url: 'https://api.anthropic.com/v1/messages',
      requestBodyValues: {},
      statusCode: 400,
    });
    const model = fakeModel({ answers: [overflow] });
    const controller = new AbortController();
    const error = await fromAiSdk(model, { modelId: 'anthropic:claude' })
      .generate({ contents: [], signal: controller.signal })
      .catch((e: unknown) => e);
    expect(model.calls[0]?.abortSignal).toBe(controller.signal);
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).kind).toBe('context_overflow');
    expect((error as ModelError).cause).toBe(overflow);
  });

  it('lets an abort through as itself, before or during the call', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = fakeModel({ answers: [] });
    const before = await fromAiSdk(model)
      .generate({ contents: [], signal: controller.signal })
      .catch((e: unknown) => e);
    expect((before as Error).name).toBe('AbortError');
    expect(model.calls).toHaveLength(0);

    const abort = new DOMException('This operation was aborted', 'AbortError');
    const during = await fromAiSdk(fakeModel({ answers: [abort] }))
      .generate({ contents: [] })
      .catch((e: unknown) => e);
    expect(during).toBe(abort);
  });
});
