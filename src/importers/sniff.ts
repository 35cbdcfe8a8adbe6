/**
 * `--format auto`: decide a transcript's format from its file name and first bytes. Cheap: the
 * text is parsed at most once (JSONL: only its first record).
 */
import { ImportError } from './errors.js';
import { isRecord } from './json-input.js';
import type { ImportFormat } from './types.js';

const AI_SDK_PART_TYPES = new Set(['tool-call', 'tool-result', 'reasoning', 'file', 'image']);

export function sniffFormat(text: string, fileName = ''): ImportFormat {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.traj')) return 'swe-agent';
  const trimmed = text.trimStart();
  if (lower.endsWith('.jsonl') || looksLikeJsonLines(trimmed)) {
    const firstLine = trimmed.split('\n', 1)[0] ?? '';
    try {
      const record: unknown = JSON.parse(firstLine);
      if (isRecord(record) && typeof record.type === 'string') return 'claude-code';
    } catch {
      // fall through: a JSONL file whose first line is broken still reads as Claude Code
      if (lower.endsWith('.jsonl')) return 'claude-code';
    }
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new ImportError({
      message: `cannot tell the format of ${fileName || 'the input'}: it is neither JSON nor JSON lines; pass --format`,
    });
  }
  const format = sniffDocument(document);
  if (!format) {
    throw new ImportError({
      message: `cannot tell the format of ${fileName || 'the input'}; pass --format (adk, openai-chat, claude-code, swe-agent, ai-sdk)`,
    });
  }
  return format;
}

function looksLikeJsonLines(text: string): boolean {
  const newline = text.indexOf('\n');
  if (!text.startsWith('{') || newline === -1) return false;
  const rest = text.slice(newline + 1).trimStart();
  return rest.startsWith('{');
}

/** The format of a parsed document, or `undefined`. */
export function sniffDocument(document: unknown): ImportFormat | undefined {
  if (Array.isArray(document)) {
    if (document.length > 0 && document.every((item) => isRecord(item) && 'traj' in item)) {
      return 'openai-chat';
    }
    if (
      document.some((item) => isRecord(item) && ('invocationId' in item || 'invocation_id' in item))
    ) {
      return 'adk';
    }
    return isAiSdkMessages(document)
      ? 'ai-sdk'
      : document.every((item) => isRecord(item) && 'role' in item)
        ? 'openai-chat'
        : undefined;
  }
  if (!isRecord(document)) return undefined;
  if (Array.isArray(document.history)) return 'swe-agent';
  if (Array.isArray(document.events)) return 'adk';
  if (Array.isArray(document.messages)) {
    return isAiSdkMessages(document.messages) ? 'ai-sdk' : 'openai-chat';
  }
  if ('traj' in document) return 'openai-chat';
  return undefined;
}

/** AI SDK messages use typed parts (`tool-call`, `reasoning`, ...) where OpenAI uses fields. */
export function isAiSdkMessages(messages: unknown[]): boolean {
  return messages.some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message.content) &&
      message.content.some((part) => isRecord(part) && AI_SDK_PART_TYPES.has(String(part.type))),
  );
}
