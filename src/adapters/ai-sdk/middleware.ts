/**
 * `compactionMiddleware`: orrery's lossless compaction for `wrapLanguageModel`, so
 * `generateText`, `streamText` and `ToolLoopAgent` send the orrery view (summary + tail) instead
 * of the whole history while the session keeps everything. A call is orrery's when it names a
 * conversation in `providerOptions.orrery.conversationId`; any other call passes untouched.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { Release } from '../shared/conversation-lock.js';
import { conversationOf, withoutOrreryOptions } from './call-options.js';
import {
  type AiSdkCompactionOptions,
  ConversationCompaction,
  type PreparedCall,
} from './conversation-compaction.js';
import { promptFor, splitPrompt } from './prompt.js';
import { StreamRecorder } from './stream-recorder.js';

export type CompactionMiddlewareOptions = AiSdkCompactionOptions;

/** A compaction middleware for `wrapLanguageModel({ model, middleware })`. */
export function compactionMiddleware(
  options: CompactionMiddlewareOptions,
): LanguageModelV3Middleware {
  const compaction = new ConversationCompaction(options);
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const conversation = conversationOf(params.providerOptions);
      if (!conversation) return doGenerate();
      const key = compaction.key(conversation);
      const signal = params.abortSignal;
      const release = await compaction.acquire({ key, signal });
      try {
        const { call, send } = await prepare({ compaction, params, model, key });
        const result = await compaction.send({
          call,
          signal,
          send: (contents) => model.doGenerate(send(contents)),
        });
        await compaction.record({ call, content: result.content, usage: result.usage, signal });
        return result;
      } finally {
        await release();
      }
    },
    wrapStream: async ({ doStream, params, model }) => {
      const conversation = conversationOf(params.providerOptions);
      if (!conversation) return doStream();
      const key = compaction.key(conversation);
      const signal = params.abortSignal;
      const release = await compaction.acquire({ key, signal });
      try {
        const { call, send } = await prepare({ compaction, params, model, key });
        const result = await compaction.send({
          call,
          signal,
          send: (contents) => model.doStream(send(contents)),
        });
        return recordStream({ compaction, call, result, release, signal });
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}

async function prepare(options: {
  compaction: ConversationCompaction;
  params: LanguageModelV3CallOptions;
  model: LanguageModelV3;
  key: PreparedCall['key'];
}): Promise<{
  call: PreparedCall;
  send: (contents: PreparedCall['contents']) => LanguageModelV3CallOptions;
}> {
  const { compaction, params, model, key } = options;
  const { system, messages, systemInstruction } = splitPrompt(params.prompt);
  const call = await compaction.prepare({
    key,
    messages,
    systemInstruction,
    tools: params.tools,
    model,
    signal: params.abortSignal,
  });
  const { providerOptions: _providerOptions, ...rest } = params;
  const providerOptions = withoutOrreryOptions(params.providerOptions);
  const send = (contents: PreparedCall['contents']): LanguageModelV3CallOptions => ({
    ...rest,
    ...(providerOptions ? { providerOptions } : {}),
    prompt: promptFor({ original: params.prompt, system, contents, provider: model.provider }),
  });
  return { call, send };
}

/**
 * The provider's stream, passed on part by part; when it ends the answer is stored before the
 * consumer sees the end (so the next step finds it), and the conversation is released. A
 * cancelled or failed stream stores nothing (the next call logs what the app kept).
 */
function recordStream(options: {
  compaction: ConversationCompaction;
  call: PreparedCall;
  result: LanguageModelV3StreamResult;
  release: Release;
  signal?: AbortSignal;
}): LanguageModelV3StreamResult {
  const { compaction, call, result, release, signal } = options;
  const recorder = new StreamRecorder();
  const reader = result.stream.getReader();
  let finished = false;
  const finish = async (complete: boolean) => {
    if (finished) return;
    finished = true;
    try {
      const recorded = recorder.result();
      if (complete && !recorded.failed) {
        await compaction.record({ call, content: recorded.content, usage: recorded.usage, signal });
      }
    } finally {
      await release();
    }
  };
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          await finish(true);
          controller.close();
          return;
        }
        recorder.add(value);
        controller.enqueue(value);
      } catch (error) {
        await finish(false);
        controller.error(error);
      }
    },
    async cancel(reason) {
      await finish(false);
      await reader.cancel(reason);
    },
  });
  return { ...result, stream };
}
