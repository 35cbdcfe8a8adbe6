/**
 * An AI SDK v3 generate result back to orrery's `ModelResponse` (ADK shape): text, thoughts,
 * function calls and files, usage as `usageMetadata`, and the unified finish reason.
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { Part, UsageMetadata } from '../events/types.js';
import { ModelError } from './errors.js';
import type { ModelResponse } from './types.js';

export function fromAiSdkResult(
  result: LanguageModelV3GenerateResult,
  options: { modelId?: string } = {},
): ModelResponse {
  const parts: Part[] = [];
  for (const item of result.content) {
    const part = fromAiSdkContent(item, options);
    if (part !== undefined) parts.push(part);
  }
  const response: ModelResponse = { content: { role: 'model', parts } };
  const usageMetadata = toUsageMetadata(result.usage);
  if (usageMetadata !== undefined) response.usageMetadata = usageMetadata;
  const cacheWrite = result.usage?.inputTokens?.cacheWrite;
  if (typeof cacheWrite === 'number' && cacheWrite > 0) response.cacheWriteTokenCount = cacheWrite;
  const finishReason = finishReasonOf(result.finishReason);
  if (finishReason !== undefined) response.finishReason = finishReason;
  if (result.response?.id !== undefined) response.responseId = result.response.id;
  if (result.response?.modelId !== undefined) response.responseModel = result.response.modelId;
  return response;
}

/** One item of an AI SDK result as an orrery part, or `undefined` when it has none. */
export function fromAiSdkContent(
  item: LanguageModelV3Content,
  options: { modelId?: string } = {},
): Part | undefined {
  switch (item.type) {
    case 'text':
      return item.text === ''
        ? undefined
        : withSignature({ text: item.text }, item.providerMetadata);
    case 'reasoning': {
      const part = withSignature({ text: item.text, thought: true }, item.providerMetadata);
      // Empty unsigned reasoning (e.g. an OpenAI reasoning item without summary) says nothing.
      return item.text !== '' || part.thoughtSignature !== undefined ? part : undefined;
    }
    case 'tool-call':
      // Provider-executed tools (web search, code execution) are not orrery's to run.
      if (item.providerExecuted === true) return undefined;
      return withSignature(
        {
          functionCall: {
            id: item.toolCallId,
            name: item.toolName,
            args: parseArguments(item.input, item.toolName, options.modelId),
          },
        },
        item.providerMetadata,
      );
    case 'file':
      return withSignature(
        {
          inlineData: {
            mimeType: item.mediaType,
            data:
              typeof item.data === 'string' ? item.data : Buffer.from(item.data).toString('base64'),
          },
        },
        item.providerMetadata,
      );
    default:
      // Sources, provider tool results and approval requests have no orrery part.
      return undefined;
  }
}

export function toUsageMetadata(
  usage: LanguageModelV3Usage | undefined,
): UsageMetadata | undefined {
  if (usage === undefined) return undefined;
  const metadata: UsageMetadata = {};
  const input = usage.inputTokens?.total;
  const output = usage.outputTokens?.total;
  const cached = usage.inputTokens?.cacheRead;
  if (input !== undefined) metadata.promptTokenCount = input;
  if (output !== undefined) metadata.candidatesTokenCount = output;
  if (input !== undefined || output !== undefined) {
    metadata.totalTokenCount = (input ?? 0) + (output ?? 0);
  }
  if (cached !== undefined) metadata.cachedContentTokenCount = cached;
  return Object.keys(metadata).length === 0 ? undefined : metadata;
}

function finishReasonOf(reason: LanguageModelV3GenerateResult['finishReason']): string | undefined {
  // v3 gives `{ unified, raw }`; a plain string is accepted from v2-style wrappers.
  if (typeof reason === 'string') return reason;
  return reason?.unified;
}

function parseArguments(
  input: string,
  toolName: string,
  modelId?: string,
): Record<string, unknown> {
  if (input.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch (error) {
    throw new ModelError({
      kind: 'fatal',
      message: `${modelId === undefined ? '' : `${modelId}: `}function call '${toolName}' has arguments that are not JSON: ${input.slice(0, 200)}`,
      modelId,
      cause: error,
    });
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  // orrery's args are an object; a bare value (some local models) is kept under `value`.
  return { value };
}

/**
 * Gemini's `thoughtSignature` (any Google namespace) or Anthropic's thinking `signature`,
 * kept on the part so it can travel back with the next request.
 */
function withSignature(part: Part, metadata: SharedV3ProviderMetadata | undefined): Part {
  if (metadata === undefined) return part;
  for (const [namespace, values] of Object.entries(metadata)) {
    const signature =
      values?.thoughtSignature ?? (namespace === 'anthropic' ? values?.signature : undefined);
    if (typeof signature === 'string' && signature !== '') {
      return { ...part, thoughtSignature: signature };
    }
  }
  return part;
}
