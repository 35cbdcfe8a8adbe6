/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`): one record a line.
 * Conversation records have `type` `user` or `assistant` and an Anthropic `message`; other record
 * types (`summary`, `system`, `progress`, `file-history-snapshot`, `queue-operation`, ...) are
 * counted in `meta.skipped`. One assistant message streamed over several records sharing
 * `message.id` becomes one event, even when tool results were written between its records
 * (Claude Code runs parallel tools while the message streams): those results follow it. `isCompactSummary` records (an earlier compaction's summary)
 * become user text marked with `customMetadata['orrery:earlierSummary']`. `isSidechain` records
 * (a sub-agent) go on the `sidechain` branch inside the invocation that spawned them.
 */
import type { Part, UsageMetadata } from '../events/types.js';
import { ImportError } from './errors.js';
import { isRecord, toEpochSeconds } from './json-input.js';
import { assertNestingDepth, stripBom } from './text-input.js';
import {
  type BuilderCall,
  type BuilderResult,
  EARLIER_SUMMARY_KEY,
  TranscriptBuilder,
} from './transcript-builder.js';
import type { ImportOptions, ImportResult } from './types.js';

const FORMAT = 'claude-code';
export const SIDECHAIN_BRANCH = 'sidechain';

interface ConversationRecord {
  line: number;
  type: 'user' | 'assistant';
  record: Record<string, unknown>;
  message: Record<string, unknown>;
  blocks: Record<string, unknown>[];
  sidechain: boolean;
}

/** Parse the JSONL into conversation records; a malformed line throws naming the line. */
function readRecords(text: string): { records: ConversationRecord[]; skipped: number } {
  const records: ConversationRecord[] = [];
  let skipped = 0;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (error) {
      throw new ImportError({
        message: `not valid JSON (${(error as Error).message})`,
        line,
        format: FORMAT,
        cause: error,
      });
    }
    if (!isRecord(record)) {
      throw new ImportError({ message: 'a record must be a JSON object', line, format: FORMAT });
    }
    if (record.type !== 'user' && record.type !== 'assistant') {
      if (typeof record.type !== 'string') {
        throw new ImportError({
          message: 'a record needs a string `type`',
          line,
          path: 'type',
          format: FORMAT,
        });
      }
      skipped++;
      return;
    }
    const message = record.message;
    if (!isRecord(message)) {
      throw new ImportError({
        message: `a ${record.type} record needs a \`message\` object`,
        line,
        path: 'message',
        format: FORMAT,
      });
    }
    const content = message.content;
    let blocks: Record<string, unknown>[];
    if (typeof content === 'string') blocks = [{ type: 'text', text: content }];
    else if (Array.isArray(content)) {
      blocks = content.map((block, blockIndex) => {
        if (!isRecord(block) || typeof block.type !== 'string') {
          throw new ImportError({
            message: 'a content block needs a string `type`',
            line,
            path: `message.content[${blockIndex}]`,
            format: FORMAT,
          });
        }
        return block;
      });
    } else {
      throw new ImportError({
        message: 'must be a string or a list of content blocks',
        line,
        path: 'message.content',
        format: FORMAT,
      });
    }
    records.push({
      line,
      type: record.type,
      record,
      message,
      blocks,
      sidechain: record.isSidechain === true,
    });
  });
  return { records, skipped };
}

/** One step of the conversation: a model call (all records of one message) or a user record. */
type Unit =
  | { kind: 'assistant'; group: ConversationRecord[]; interleaved: number }
  | { kind: 'user'; record: ConversationRecord };

function isToolResultsOnly(record: ConversationRecord): boolean {
  return (
    record.type === 'user' &&
    record.blocks.length > 0 &&
    record.blocks.every((block) => block.type === 'tool_result')
  );
}

/**
 * The records in the order they become events. Claude Code writes one assistant message as
 * several records sharing `message.id`, and runs a tool as soon as its `tool_use` has streamed,
 * so the records of its results may sit between those of the message. All records of one message
 * are one model call; results interleaved with them follow it, in their order.
 */
function conversationUnits(records: ConversationRecord[]): Unit[] {
  const units: Unit[] = [];
  for (let index = 0; index < records.length; index++) {
    const first = records[index] as ConversationRecord;
    const messageId = first.message.id;
    if (first.type !== 'assistant' || messageId === undefined) {
      units.push(
        first.type === 'assistant'
          ? { kind: 'assistant', group: [first], interleaved: 0 }
          : { kind: 'user', record: first },
      );
      continue;
    }
    const group = [first];
    const deferred: ConversationRecord[] = [];
    let pending: ConversationRecord[] = [];
    let last = index;
    for (let scan = index + 1; scan < records.length; scan++) {
      const next = records[scan] as ConversationRecord;
      if (next.sidechain !== first.sidechain) break;
      if (next.type === 'assistant' && next.message.id === messageId) {
        group.push(next);
        deferred.push(...pending);
        pending = [];
        last = scan;
      } else if (isToolResultsOnly(next)) {
        pending.push(next);
      } else {
        break;
      }
    }
    units.push({ kind: 'assistant', group, interleaved: deferred.length });
    for (const record of deferred) units.push({ kind: 'user', record });
    index = last;
  }
  return units;
}

export function importClaudeCode(
  input: string | unknown,
  options: ImportOptions = {},
): ImportResult {
  if (typeof input !== 'string') {
    throw new ImportError({ message: 'Claude Code sessions are JSONL text', format: FORMAT });
  }
  const text = stripBom(input);
  assertNestingDepth(text, { format: FORMAT });
  const { records, skipped } = readRecords(text);
  const builder = new TranscriptBuilder({ ...options, format: FORMAT });
  // Sub-agent transcripts saved on their own are sidechain throughout: import them as the main line.
  const hasMainLine = records.some((record) => !record.sidechain);
  let model: string | undefined;
  let sourceId: string | undefined;

  for (const unit of conversationUnits(records)) {
    const first = unit.kind === 'assistant' ? (unit.group[0] as ConversationRecord) : unit.record;
    const branch = first.sidechain && hasMainLine ? SIDECHAIN_BRANCH : undefined;
    const location = `line ${first.line}`;
    const timestamp = toEpochSeconds(first.record.timestamp);
    sourceId ??= typeof first.record.sessionId === 'string' ? first.record.sessionId : undefined;

    if (unit.kind === 'assistant') {
      const { group } = unit;
      if (group.length > 1) {
        const interleaved =
          unit.interleaved > 0
            ? ` (${unit.interleaved} tool result record(s) written between them follow it)`
            : '';
        builder.repairs.push({
          kind: 'records_merged',
          message: `${group.length} records of assistant message '${String(first.message.id)}' merged into one event${interleaved}`,
          location: `lines ${first.line}-${(group[group.length - 1] as ConversationRecord).line}`,
        });
      }
      const parts: Part[] = [];
      const calls: BuilderCall[] = [];
      for (const record of group) {
        record.blocks.forEach((block, blockIndex) => {
          assistantBlock(
            block,
            parts,
            calls,
            `line ${record.line}, message.content[${blockIndex}]`,
          );
        });
      }
      const lastMessage = (group[group.length - 1] as ConversationRecord).message;
      if (typeof lastMessage.model === 'string' && !lastMessage.model.startsWith('<')) {
        model ??= lastMessage.model;
      }
      if (parts.length === 0 && calls.length === 0) parts.push({ text: '' });
      builder.modelMessage({
        parts,
        calls,
        location,
        timestamp,
        branch,
        usageMetadata: usage(lastMessage.usage),
        finishReason:
          typeof lastMessage.stop_reason === 'string' ? lastMessage.stop_reason : undefined,
      });
      continue;
    }

    const results: BuilderResult[] = [];
    const parts: Part[] = [];
    first.blocks.forEach((block, blockIndex) => {
      const path = `message.content[${blockIndex}]`;
      if (block.type === 'tool_result') {
        if (typeof block.tool_use_id !== 'string') {
          throw new ImportError({
            message: 'a tool_result needs a string `tool_use_id`',
            line: first.line,
            path: `${path}.tool_use_id`,
            format: FORMAT,
          });
        }
        const { text, images } = resultContent(block.content);
        results.push({
          callId: block.tool_use_id,
          response: block.is_error === true ? { error: text } : { result: text },
        });
        // Images a tool returned (a screenshot, a read PNG) stay images, beside the result.
        parts.push(...images);
      } else {
        parts.push(userBlock(block, first.line, path));
      }
    });
    if (results.length > 0) {
      builder.toolResults({ results, extraParts: parts, location, timestamp, branch });
    } else {
      const customMetadata =
        first.record.isCompactSummary === true ? { [EARLIER_SUMMARY_KEY]: true } : undefined;
      builder.userMessage({ parts, location, timestamp, branch, customMetadata });
    }
  }

  const { events, repairs } = builder.finish();
  const result: ImportResult = { events, repairs, meta: { format: FORMAT, skipped } };
  if (model) result.meta.model = model;
  if (sourceId) result.meta.sourceId = sourceId;
  return result;
}

function assistantBlock(
  block: Record<string, unknown>,
  parts: Part[],
  calls: BuilderCall[],
  path: string,
): void {
  switch (block.type) {
    case 'text':
      parts.push({ text: String(block.text ?? '') });
      return;
    case 'thinking': {
      const part: Part = { text: String(block.thinking ?? ''), thought: true };
      if (typeof block.signature === 'string' && block.signature !== '')
        part.thoughtSignature = block.signature;
      parts.push(part);
      return;
    }
    case 'redacted_thinking':
      parts.push({
        text: '[redacted thinking]',
        thought: true,
        thoughtSignature: String(block.data ?? ''),
      });
      return;
    case 'tool_use':
    case 'server_tool_use':
      if (typeof block.name !== 'string' || block.name === '') {
        throw new ImportError({
          message: 'a tool_use needs a `name`',
          path: `${path}.name`,
          format: FORMAT,
        });
      }
      calls.push({
        id: typeof block.id === 'string' ? block.id : undefined,
        name: block.name,
        args: isRecord(block.input) ? block.input : { input: block.input ?? null },
      });
      return;
    default:
      // Unknown blocks are kept as their JSON, never dropped.
      parts.push({ text: JSON.stringify(block) });
  }
}

function userBlock(block: Record<string, unknown>, line: number, path: string): Part {
  if (block.type === 'text') {
    if (typeof block.text !== 'string') {
      throw new ImportError({
        message: 'a text block needs `text`',
        line,
        path: `${path}.text`,
        format: FORMAT,
      });
    }
    return { text: block.text };
  }
  return imagePart(block) ?? { text: JSON.stringify(block) };
}

/**
 * A tool_result's content: a string, or blocks. Text blocks are joined; an image block becomes
 * an `inlineData` part (noted in the text as `[image: type]`), never its base64 as text, which
 * would count as tens of thousands of tokens; other blocks are kept as their JSON.
 */
function resultContent(content: unknown): { text: string; images: Part[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  if (content === undefined || content === null) return { text: '', images: [] };
  if (!Array.isArray(content)) return { text: JSON.stringify(content), images: [] };
  const images: Part[] = [];
  const texts = content.map((block) => {
    if (isRecord(block) && block.type === 'text') return String(block.text ?? '');
    const image = isRecord(block) ? imagePart(block) : undefined;
    if (image?.inlineData) {
      images.push(image);
      return `[image: ${image.inlineData.mimeType}]`;
    }
    return JSON.stringify(block);
  });
  return { text: texts.join('\n'), images };
}

/** An Anthropic base64 image block as an `inlineData` part; other images stay undefined. */
function imagePart(block: Record<string, unknown>): Part | undefined {
  if (block.type !== 'image' || !isRecord(block.source) || block.source.type !== 'base64') {
    return undefined;
  }
  return {
    inlineData: {
      mimeType: String(block.source.media_type ?? 'image/png'),
      data: String(block.source.data ?? ''),
    },
  };
}

function usage(value: unknown): UsageMetadata | undefined {
  if (!isRecord(value)) return undefined;
  const number = (key: string): number =>
    typeof value[key] === 'number' ? (value[key] as number) : 0;
  const cached = number('cache_read_input_tokens');
  const prompt = number('input_tokens') + number('cache_creation_input_tokens') + cached;
  const candidates = number('output_tokens');
  if (prompt === 0 && candidates === 0) return undefined;
  const metadata: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates,
  };
  if (cached > 0) metadata.cachedContentTokenCount = cached;
  return metadata;
}
