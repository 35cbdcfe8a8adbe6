/**
 * AI SDK `ModelMessage[]` JSON (what `generateText`'s `response.messages` holds, saved as JSON),
 * or an object with `messages`. Roles `system` (kept as the instruction), `user`, `assistant`,
 * `tool`; content a string or parts: `text`, `reasoning`, `image`, `file`, `tool-call`
 * (`input`, or v4's `args`), `tool-result` (`output`, or v4's `result`).
 */
import type { Part } from '../events/types.js';
import { ImportError } from './errors.js';
import { isRecord, parseJsonInput } from './json-input.js';
import { type BuilderCall, type BuilderResult, TranscriptBuilder } from './transcript-builder.js';
import type { ImportOptions, ImportResult } from './types.js';

const FORMAT = 'ai-sdk';

export function importAiSdk(input: string | unknown, options: ImportOptions = {}): ImportResult {
  const document = parseJsonInput(input, FORMAT);
  const messages = Array.isArray(document)
    ? document
    : isRecord(document) && Array.isArray(document.messages)
      ? document.messages
      : undefined;
  if (!messages) {
    throw new ImportError({
      message: 'expected an array of AI SDK messages or an object with `messages`',
      format: FORMAT,
    });
  }
  const builder = new TranscriptBuilder({ ...options, format: FORMAT });
  const instructions: string[] = [];

  messages.forEach((message, index) => {
    const location = `[${index}]`;
    if (!isRecord(message)) {
      throw new ImportError({
        message: 'a message must be an object',
        path: location,
        format: FORMAT,
      });
    }
    const parts = normalizeParts(message.content, `${location}.content`);
    switch (message.role) {
      case 'system':
        instructions.push(parts.map((part) => String(part.text ?? '')).join(''));
        return;
      case 'user':
        builder.userMessage({
          parts: parts.map((part, partIndex) =>
            userPart(part, `${location}.content[${partIndex}]`),
          ),
          location,
        });
        return;
      case 'assistant': {
        const contentParts: Part[] = [];
        const calls: BuilderCall[] = [];
        const providerResults: BuilderResult[] = [];
        const providerMedia: Part[] = [];
        parts.forEach((part, partIndex) => {
          const path = `${location}.content[${partIndex}]`;
          if (part.type === 'tool-call') calls.push(toolCall(part, path));
          else if (part.type === 'tool-result')
            providerResults.push(toolResult(part, path, providerMedia));
          else if (part.type === 'reasoning')
            contentParts.push({ text: String(part.text ?? ''), thought: true });
          else contentParts.push(userPart(part, path));
        });
        if (contentParts.length === 0 && calls.length === 0) contentParts.push({ text: '' });
        builder.modelMessage({ parts: contentParts, calls, location });
        // Provider-executed tools answer inside the assistant message: kept as their own response event.
        if (providerResults.length > 0) {
          builder.toolResults({ results: providerResults, extraParts: providerMedia, location });
        }
        return;
      }
      case 'tool': {
        const media: Part[] = [];
        const results = parts.map((part, partIndex) => {
          const path = `${location}.content[${partIndex}]`;
          if (part.type === 'tool-result') return toolResult(part, path, media);
          // Approval responses and other tool-role parts are kept as their JSON.
          return { response: { result: JSON.stringify(part) } } satisfies BuilderResult;
        });
        builder.toolResults({ results, extraParts: media, location });
        return;
      }
      default:
        throw new ImportError({
          message: `unknown role ${JSON.stringify(message.role)} (expected system, user, assistant or tool)`,
          path: `${location}.role`,
          format: FORMAT,
        });
    }
  });

  const { events, repairs } = builder.finish();
  const result: ImportResult = { events, repairs, meta: { format: FORMAT } };
  if (instructions.length > 0) result.meta.systemInstruction = instructions.join('\n\n');
  return result;
}

function normalizeParts(content: unknown, path: string): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) {
    throw new ImportError({
      message: 'content must be a string or an array of parts',
      path,
      format: FORMAT,
    });
  }
  return content.map((part, index) => {
    if (!isRecord(part) || typeof part.type !== 'string') {
      throw new ImportError({
        message: 'a part needs a string `type`',
        path: `${path}[${index}].type`,
        format: FORMAT,
      });
    }
    return part;
  });
}

function userPart(part: Record<string, unknown>, path: string): Part {
  if (part.type === 'text') {
    if (typeof part.text !== 'string') {
      throw new ImportError({
        message: 'a text part needs `text`',
        path: `${path}.text`,
        format: FORMAT,
      });
    }
    return { text: part.text };
  }
  if (
    (part.type === 'image' || part.type === 'file') &&
    typeof (part.image ?? part.data) === 'string'
  ) {
    const data = String(part.image ?? part.data);
    const mimeType = String(
      part.mediaType ??
        part.mimeType ??
        (part.type === 'image' ? 'image/png' : 'application/octet-stream'),
    );
    if (/^(https?:|data:)/.test(data)) {
      const inline = /^data:([^;,]+);base64,(.*)$/s.exec(data);
      if (inline?.[1] && inline[2] !== undefined)
        return { inlineData: { mimeType: inline[1], data: inline[2] } };
      return { text: `[${part.type}: ${data}]` };
    }
    return { inlineData: { mimeType, data } };
  }
  return { text: JSON.stringify(part) };
}

function toolCall(part: Record<string, unknown>, path: string): BuilderCall {
  if (typeof part.toolName !== 'string' || part.toolName === '') {
    throw new ImportError({
      message: 'a tool-call needs `toolName`',
      path: `${path}.toolName`,
      format: FORMAT,
    });
  }
  const input = part.input ?? part.args;
  return {
    id: typeof part.toolCallId === 'string' && part.toolCallId !== '' ? part.toolCallId : undefined,
    name: part.toolName,
    args: isRecord(input) ? input : input === undefined ? {} : { input },
  };
}

/** A tool-result part; images and files it returned are added to `media` as `inlineData`. */
function toolResult(part: Record<string, unknown>, path: string, media: Part[]): BuilderResult {
  const callId =
    typeof part.toolCallId === 'string' && part.toolCallId !== '' ? part.toolCallId : undefined;
  const name = typeof part.toolName === 'string' ? part.toolName : undefined;
  if (part.output === undefined && !('result' in part)) {
    throw new ImportError({
      message: 'a tool-result needs `output`',
      path: `${path}.output`,
      format: FORMAT,
    });
  }
  // AI SDK 4 wrote `result` and flagged failures with `isError`.
  const output = part.output ?? {
    type: part.isError === true ? 'error-json' : 'json',
    value: part.result,
  };
  return { callId, name, response: outputResponse(output, media) };
}

function outputResponse(output: unknown, media: Part[]): Record<string, unknown> {
  if (!isRecord(output) || typeof output.type !== 'string') return { result: output ?? null };
  switch (output.type) {
    case 'text':
      return { result: output.value };
    case 'json':
      return isRecord(output.value) ? output.value : { result: output.value ?? null };
    case 'error-text':
    case 'error-json':
      return { error: output.value ?? null };
    case 'execution-denied':
      return {
        error: `execution denied${typeof output.reason === 'string' ? `: ${output.reason}` : ''}`,
      };
    case 'content':
      if (Array.isArray(output.value)) return { result: contentOutput(output.value, media) };
      return { content: output.value ?? null };
    default:
      return { content: output.value ?? null };
  }
}

/**
 * A `content` output: its text items joined; base64 images and files (`media`, `image-data`,
 * `file-data`) become `inlineData` parts beside the result, noted `[image/png]` in the text,
 * so their base64 is never counted as text; anything else is kept as its JSON.
 */
function contentOutput(items: unknown[], media: Part[]): string {
  return items
    .map((item) => {
      if (isRecord(item) && item.type === 'text' && typeof item.text === 'string') return item.text;
      if (
        isRecord(item) &&
        typeof item.data === 'string' &&
        typeof item.mediaType === 'string' &&
        ['media', 'image-data', 'file-data'].includes(String(item.type))
      ) {
        media.push({ inlineData: { mimeType: item.mediaType, data: item.data } });
        return `[${item.mediaType}]`;
      }
      return JSON.stringify(item);
    })
    .join('\n');
}
