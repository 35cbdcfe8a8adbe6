/**
 * AI SDK messages (a `LanguageModelV3Prompt` message, or a `ModelMessage` as `prepareStep` sees
 * it) and model responses as orrery contents (ADK shape). Both directions use one set of rules so
 * that a stored response and the same answer coming back in the next prompt have one identity.
 * Provider-executed tool calls and their results are left out (they are not orrery's to replay).
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3Message,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { ModelMessage, ToolResultPart } from 'ai';
import type { Content, Part } from '../../events/types.js';

/** A non-system message of either shape. */
export type ConversationMessage =
  | Exclude<LanguageModelV3Message, { role: 'system' }>
  | Exclude<ModelMessage, { role: 'system' }>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON-safe copy (a tool's input or output may hold `undefined` or a `Date`). */
function jsonCopy(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value) ?? 'null');
}

function toBase64(data: Uint8Array | ArrayBuffer): string {
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('base64');
}

/** Gemini's `thoughtSignature` (any namespace) or Anthropic's thinking `signature`. */
function signatureOf(metadata: SharedV3ProviderMetadata | undefined): string | undefined {
  if (metadata === undefined) return undefined;
  for (const [namespace, values] of Object.entries(metadata)) {
    const signature =
      values?.thoughtSignature ?? (namespace === 'anthropic' ? values?.signature : undefined);
    if (typeof signature === 'string' && signature !== '') return signature;
  }
  return undefined;
}

function withSignature(part: Part, metadata: SharedV3ProviderMetadata | undefined): Part {
  const signature = signatureOf(metadata);
  return signature === undefined ? part : { ...part, thoughtSignature: signature };
}

function fileOrLink(data: unknown, mediaType: string): Part {
  if (data instanceof URL) return { fileData: { fileUri: data.href, mimeType: mediaType } };
  if (typeof data === 'string') {
    if (/^https?:\/\//i.test(data)) return { fileData: { fileUri: data, mimeType: mediaType } };
    const inline = /^data:([^;,]+);base64,(.*)$/s.exec(data);
    if (inline?.[1] && inline[2] !== undefined) {
      return { inlineData: { mimeType: inline[1], data: inline[2] } };
    }
    return { inlineData: { mimeType: mediaType, data } };
  }
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    return { inlineData: { mimeType: mediaType, data: toBase64(data) } };
  }
  return { text: `[file ${mediaType}]` };
}

/** A tool result's output as a function response's `response` object. */
export function outputToResponse(
  output: LanguageModelV3ToolResultOutput | ToolResultPart['output'],
): Record<string, unknown> {
  switch (output.type) {
    case 'text':
      return { result: output.value };
    case 'json': {
      const value = jsonCopy(output.value);
      return isRecord(value) ? value : { result: value };
    }
    case 'error-text':
    case 'error-json':
      return { error: jsonCopy(output.value) };
    case 'execution-denied':
      return { error: `execution denied${output.reason ? `: ${output.reason}` : ''}` };
    case 'content':
      return { result: jsonCopy(output.value) };
    default:
      return { result: jsonCopy(output) };
  }
}

function argsOf(input: unknown): Record<string, unknown> {
  const value = jsonCopy(input);
  if (isRecord(value)) return value;
  return value === null ? {} : { value };
}

/** A user, assistant or tool message as one orrery content. */
export function messageToContent(message: ConversationMessage): Content {
  if (typeof message.content === 'string') {
    return {
      role: message.role === 'assistant' ? 'model' : 'user',
      parts: textParts(message.content, message.role),
    };
  }
  const parts: Part[] = [];
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        // The AI SDK leaves empty texts out of the messages it builds from a response.
        if (message.role !== 'assistant' || part.text !== '') parts.push({ text: part.text });
        break;
      case 'reasoning':
        parts.push(withSignature({ text: part.text, thought: true }, part.providerOptions));
        break;
      case 'image':
        parts.push(fileOrLink(part.image, part.mediaType ?? 'image/*'));
        break;
      case 'file':
        parts.push(withSignature(fileOrLink(part.data, part.mediaType), part.providerOptions));
        break;
      case 'tool-call':
        if (part.providerExecuted === true) break;
        parts.push(
          withSignature(
            {
              functionCall: { id: part.toolCallId, name: part.toolName, args: argsOf(part.input) },
            },
            part.providerOptions,
          ),
        );
        break;
      case 'tool-result':
        // Inside an assistant message it is a provider-executed tool's result: left out.
        if (message.role === 'assistant') break;
        parts.push({
          functionResponse: {
            id: part.toolCallId,
            name: part.toolName,
            response: outputToResponse(part.output),
          },
        });
        break;
      case 'tool-approval-response':
        parts.push({
          text: `Tool approval ${part.approvalId}: ${part.approved ? 'approved' : 'denied'}${part.reason ? ` (${part.reason})` : ''}`,
        });
        break;
      default:
        // Tool approval requests: the AI SDK keeps them; a provider never reads them back.
        break;
    }
  }
  return { role: message.role === 'assistant' ? 'model' : 'user', parts };
}

function textParts(text: string, role: ConversationMessage['role']): Part[] {
  if (role === 'assistant' && text === '') return [];
  return [{ text }];
}

/** A model's response (generate result content, or what a stream assembled) as one content. */
export function responseToContent(content: readonly LanguageModelV3Content[]): Content {
  const parts: Part[] = [];
  for (const item of content) {
    switch (item.type) {
      case 'text':
        if (item.text !== '') parts.push(withSignature({ text: item.text }, item.providerMetadata));
        break;
      case 'reasoning':
        parts.push(withSignature({ text: item.text, thought: true }, item.providerMetadata));
        break;
      case 'tool-call':
        if (item.providerExecuted === true) break;
        parts.push(
          withSignature(
            {
              functionCall: {
                id: item.toolCallId,
                name: item.toolName,
                args: parseInput(item.input),
              },
            },
            item.providerMetadata,
          ),
        );
        break;
      case 'file':
        parts.push(
          withSignature(
            {
              inlineData: {
                mimeType: item.mediaType,
                data: typeof item.data === 'string' ? item.data : toBase64(item.data),
              },
            },
            item.providerMetadata,
          ),
        );
        break;
      default:
        // Sources, provider tool results and approval requests are not sent back to a model.
        break;
    }
  }
  return { role: 'model', parts };
}

/** A tool call's JSON input; unparsable input is `{}`, as the AI SDK sends it back. */
function parseInput(input: string): Record<string, unknown> {
  if (input.trim() === '') return {};
  try {
    return argsOf(JSON.parse(input));
  } catch {
    return {};
  }
}
