/**
 * A `MockLanguageModelV3` that plays a tool-heavy agent: it asks for `lookup` `calls` times,
 * then answers (and starts over for the next question). Every prompt it receives is kept,
 * and a test can make chosen calls fail (e.g. with a context-overflow `APICallError`).
 */
import {
  APICallError,
  type LanguageModelV3CallOptions,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
} from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

export function usage(inputTokens: number, outputTokens = 20): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: inputTokens,
      noCache: inputTokens,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

export function overflowError(): APICallError {
  return new APICallError({
    message:
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens",
    url: 'https://api.example.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 400,
    responseBody: '{"error":{"code":"context_length_exceeded"}}',
    isRetryable: false,
  });
}

/** A rough prompt size: its JSON characters / 4 (what a provider would report as input tokens). */
export function promptTokens(prompt: LanguageModelV3Prompt): number {
  return Math.ceil(JSON.stringify(prompt).length / 4);
}

export interface ScriptedProvider {
  model: MockLanguageModelV3;
  prompts: LanguageModelV3Prompt[];
  /** Call numbers (0-based, over generate and stream) that fail with this error. */
  failOn: Map<number, () => Error>;
}

export function scriptedProvider(options: { calls: number; answer?: string }): ScriptedProvider {
  const prompts: LanguageModelV3Prompt[] = [];
  const failOn = new Map<number, () => Error>();
  let callNumber = 0;
  let lookups = 0;
  const decide = (params: LanguageModelV3CallOptions) => {
    const number = callNumber++;
    prompts.push(structuredClone(params.prompt));
    const failure = failOn.get(number);
    if (failure) throw failure();
    const done = lookups;
    lookups = done < options.calls ? done + 1 : 0;
    return { number, done, inputTokens: promptTokens(params.prompt) };
  };
  const model = new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doGenerate: async (params): Promise<LanguageModelV3GenerateResult> => {
      const { number, done, inputTokens } = decide(params);
      const content: LanguageModelV3GenerateResult['content'] =
        done < options.calls
          ? [
              { type: 'text', text: `Looking up item ${done}.` },
              {
                type: 'tool-call',
                toolCallId: `call-${number}`,
                toolName: 'lookup',
                input: JSON.stringify({ item: done }),
              },
            ]
          : [{ type: 'text', text: options.answer ?? `Done after ${done} lookups.` }];
      return {
        content,
        finishReason: { unified: done < options.calls ? 'tool-calls' : 'stop', raw: undefined },
        usage: usage(inputTokens),
        warnings: [],
      };
    },
    doStream: async (params) => {
      const { number, done, inputTokens } = decide(params);
      const parts: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: done < options.calls ? 'Looking up ' : 'Done ' },
        { type: 'text-delta', id: 't1', delta: `item ${done}.` },
        { type: 'text-end', id: 't1' },
      ];
      if (done < options.calls) {
        parts.push({
          type: 'tool-call',
          toolCallId: `call-${number}`,
          toolName: 'lookup',
          input: JSON.stringify({ item: done }),
        });
      }
      parts.push({
        type: 'finish',
        usage: usage(inputTokens),
        finishReason: { unified: done < options.calls ? 'tool-calls' : 'stop', raw: undefined },
      });
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts, failOn };
}
