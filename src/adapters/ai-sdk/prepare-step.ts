/**
 * `createCompactionPrepareStep`: the same compaction for apps that prefer `prepareStep` to a
 * middleware. Before each step it logs the step's new messages (with the previous step's usage on
 * its answer) and returns `{ messages }`: the orrery view, or the step's own messages when nothing
 * was compacted. It cannot see the provider's reply, so there is no overflow retry here: use the
 * middleware for that.
 */
import type { LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { LanguageModel, ModelMessage, PrepareStepFunction, ToolSet } from 'ai';
import type { UsageMetadata } from '../../events/types.js';
import { signatureFamilyOf, toAiSdkPrompt } from '../../models/to-ai-sdk-prompt.js';
import { AdapterOptionError } from '../shared/adapter-option-error.js';
import type { StepModel } from '../shared/conversation-core.js';
import { type ConversationRef, conversationOf } from './call-options.js';
import { type AiSdkCompactionOptions, createAiSdkConversation } from './conversation-compaction.js';
import type { ConversationMessage } from './message-content.js';

export interface CompactionPrepareStepOptions extends AiSdkCompactionOptions {
  /**
   * The conversation: an id, or a function of the call's `experimental_context` (`undefined`:
   * leave the step alone). Without it, `experimental_context.orrery.conversationId` is read.
   */
  conversation?:
    | string
    | ConversationRef
    | ((context: unknown) => ConversationRef | string | undefined);
}

/** The model's provider and, for the guard, its id and name. */
function modelInfo(model: LanguageModel): { provider: string; model: StepModel } {
  const [provider, name] = providerAndName(model);
  return { provider, model: { modelId: `${provider}:${name}`, name } };
}

function providerAndName(model: LanguageModel): [string, string] {
  if (typeof model !== 'string') return [model.provider, model.modelId];
  // A gateway id such as `openai/gpt-5`.
  const slash = model.indexOf('/');
  return slash < 0 ? ['gateway', model] : [model.slice(0, slash), model.slice(slash + 1)];
}

function usageMetadataOf(
  usage: { inputTokens?: number; outputTokens?: number } | undefined,
): UsageMetadata | undefined {
  if (usage?.inputTokens === undefined) return undefined;
  const metadata: UsageMetadata = { promptTokenCount: usage.inputTokens };
  if (usage.outputTokens !== undefined) {
    metadata.candidatesTokenCount = usage.outputTokens;
    metadata.totalTokenCount = usage.inputTokens + usage.outputTokens;
  }
  return metadata;
}

function resolveConversation(
  option: CompactionPrepareStepOptions['conversation'],
  context: unknown,
): ConversationRef | undefined {
  const value = typeof option === 'function' ? option(context) : option;
  if (typeof value === 'string') {
    if (value.trim() === '') {
      throw new AdapterOptionError({
        field: 'conversation',
        value,
        message: 'expected a non-empty conversation id',
      });
    }
    return { conversationId: value };
  }
  if (value !== undefined) return value;
  if (option !== undefined) return undefined;
  // `experimental_context: { orrery: { conversationId } }`, read like providerOptions.
  if (context === null || typeof context !== 'object') return undefined;
  const orrery: unknown = Reflect.get(context, 'orrery');
  if (orrery === null || typeof orrery !== 'object') return undefined;
  return conversationOf({
    orrery: {
      conversationId: stringOrNull(Reflect.get(orrery, 'conversationId')),
      userId: stringOrNull(Reflect.get(orrery, 'userId')),
    },
  });
}

function stringOrNull(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw new AdapterOptionError({
      field: 'experimental_context.orrery',
      value,
      message: 'conversationId and userId must be strings',
    });
  }
  return value;
}

/** A `prepareStep` for `generateText` / `streamText` / `ToolLoopAgent` that compacts each step. */
export function createCompactionPrepareStep<TOOLS extends ToolSet = ToolSet>(
  options: CompactionPrepareStepOptions,
): PrepareStepFunction<TOOLS> {
  const conversations = createAiSdkConversation(options);
  return async ({ messages, model, steps, experimental_context: context }) => {
    const conversation = resolveConversation(options.conversation, context);
    if (!conversation) return {};
    const key = conversations.key(conversation);
    const system = messages.filter((message) => message.role === 'system');
    const rest = messages.filter(
      (message): message is Exclude<ModelMessage, { role: 'system' }> => message.role !== 'system',
    );
    // The previous step's answer is the last assistant message: its usage anchors the estimate.
    const answerIndex = rest.findLastIndex((message) => message.role === 'assistant');
    const usageMetadata = usageMetadataOf(steps.at(-1)?.usage);
    const info = modelInfo(model);
    const release = await conversations.acquire({ key });
    try {
      const step = await conversations.prepare({
        key,
        messages: rest satisfies readonly ConversationMessage[],
        systemInstruction: system.map((message) => message.content).join('\n\n'),
        model: info.model,
        ...(usageMetadata && answerIndex >= 0
          ? { usage: { index: answerIndex, usageMetadata } }
          : {}),
      });
      const contents = conversations.viewOf(step);
      if (contents === undefined) return {};
      const view: LanguageModelV3Prompt = toAiSdkPrompt({
        contents,
        signatureFamily: signatureFamilyOf(info.provider),
      });
      return { messages: [...system, ...view] };
    } finally {
      await release();
    }
  };
}
