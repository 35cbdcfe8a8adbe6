/**
 * `compactionMiddleware`: orrery's lossless compaction for `wrapLanguageModel`, so
 * `generateText`, `streamText` and `ToolLoopAgent` send the orrery view (summary + tail) instead
 * of the whole history while the session keeps everything. A call is orrery's when it names a
 * conversation in `providerOptions.orrery.conversationId`; any other call passes untouched.
 * Each call is one step of the adapter core (`ConversationCore`).
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { Content, SessionKey } from '../../events/types.js';
import type { PrepareStepOptions } from '../shared/conversation-core.js';
import type { Release } from '../shared/conversation-lock.js';
import { conversationOf, withoutOrreryOptions } from './call-options.js';
import {
  type AiSdkCompactionOptions,
  type AiSdkConversation,
  type AiSdkStep,
  createAiSdkConversation,
} from './conversation-compaction.js';
import type { ConversationMessage } from './message-content.js';
import { promptFor, splitPrompt } from './prompt.js';
import { StreamRecorder } from './stream-recorder.js';

export type CompactionMiddlewareOptions = AiSdkCompactionOptions;

/** A compaction middleware for `wrapLanguageModel({ model, middleware })`. */
export function compactionMiddleware(
  options: CompactionMiddlewareOptions,
): LanguageModelV3Middleware {
  const conversations = createAiSdkConversation(options);
  return {
    specificationVersion: 'v3',
    wrapGenerate: async ({ doGenerate, params, model }) => {
      const conversation = conversationOf(params.providerOptions);
      if (!conversation) return doGenerate();
      const request = stepRequest(params, model, conversations.key(conversation));
      return conversations.run({
        ...request.step,
        send: (contents) => model.doGenerate(request.params(contents)),
      });
    },
    wrapStream: async ({ doStream, params, model }) => {
      const conversation = conversationOf(params.providerOptions);
      if (!conversation) return doStream();
      const request = stepRequest(params, model, conversations.key(conversation));
      const { key, signal } = request.step;
      const release = await conversations.acquire({ key, signal });
      try {
        const step = await conversations.prepare(request.step);
        const result = await conversations.send({
          step,
          signal,
          send: (contents) => model.doStream(request.params(contents)),
        });
        return recordStream({ conversations, step, result, release, signal });
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}

/** The step a call asks for, and the call's options for a view (`undefined`: its own prompt). */
function stepRequest(
  params: LanguageModelV3CallOptions,
  model: LanguageModelV3,
  key: SessionKey,
): {
  step: PrepareStepOptions<ConversationMessage>;
  params: (contents: Content[] | undefined) => LanguageModelV3CallOptions;
} {
  const { system, messages, systemInstruction } = splitPrompt(params.prompt);
  const { providerOptions: _providerOptions, ...rest } = params;
  const providerOptions = withoutOrreryOptions(params.providerOptions);
  return {
    step: {
      key,
      messages,
      systemInstruction,
      tools: params.tools,
      model: { modelId: `${model.provider}:${model.modelId}`, name: model.modelId },
      signal: params.abortSignal,
    },
    params: (contents) => ({
      ...rest,
      ...(providerOptions ? { providerOptions } : {}),
      prompt: promptFor({ original: params.prompt, system, contents, provider: model.provider }),
    }),
  };
}

/**
 * The provider's stream, passed on part by part; when it ends the answer is stored before the
 * consumer sees the end (so the next step finds it), and the conversation is released. A
 * cancelled or failed stream stores nothing (the next call logs what the app kept).
 */
function recordStream(options: {
  conversations: AiSdkConversation;
  step: AiSdkStep;
  result: LanguageModelV3StreamResult;
  release: Release;
  signal?: AbortSignal;
}): LanguageModelV3StreamResult {
  const { conversations, step, result, release, signal } = options;
  const recorder = new StreamRecorder();
  const reader = result.stream.getReader();
  let finished = false;
  const finish = async (complete: boolean) => {
    if (finished) return;
    finished = true;
    try {
      const recorded = recorder.result();
      if (complete && !recorded.failed) {
        await conversations.record({ step, answer: recorded, signal });
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
