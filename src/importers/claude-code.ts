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
import {
  type ConversationRecord,
  parseRecordLine,
  type Unit,
  UnitGrouper,
} from './claude-code-records.js';
import { ImportError } from './errors.js';
import { isRecord, toEpochSeconds } from './json-input.js';
import { assertNestingDepth, stripBom } from './text-input.js';
import {
  type BuilderCall,
  type BuilderResult,
  type BuilderStream,
  EARLIER_SUMMARY_KEY,
  TranscriptBuilder,
} from './transcript-builder.js';
import type { ImportOptions, ImportResult } from './types.js';

const FORMAT = 'claude-code';
export const SIDECHAIN_BRANCH = 'sidechain';

/**
 * A Claude Code transcript read one line at a time (`addLine`), by `importClaudeCode` from text
 * or by the streamed import from a file. Sub-agent transcripts saved on their own are sidechain
 * throughout and import as the main line: records are held only until the first main-line
 * record shows there is one (at once, in a session's usual first line).
 */
export class ClaudeCodeImport {
  private readonly builder: TranscriptBuilder;
  private readonly grouper = new UnitGrouper((unit) => this.addUnit(unit));
  private held: ConversationRecord[] | undefined = [];
  private hasMainLine = false;
  private skipped = 0;
  private model?: string;
  private sourceId?: string;

  constructor(options: ImportOptions & { stream?: BuilderStream } = {}) {
    this.builder = new TranscriptBuilder({ ...options, format: FORMAT });
  }

  /** One line of the file (1-based `line`); a malformed one throws naming it. */
  addLine(raw: string, line: number): void {
    const record = parseRecordLine(raw, line);
    if (record === 'skipped') this.skipped++;
    if (typeof record !== 'object') return;
    if (this.held && !record.sidechain) {
      this.hasMainLine = true;
      this.release();
    }
    if (this.held) this.held.push(record);
    else this.grouper.add(record);
  }

  finish(): ImportResult {
    this.release();
    this.grouper.finish();
    const { events, repairs } = this.builder.finish();
    const result: ImportResult = {
      events,
      repairs,
      meta: { format: FORMAT, skipped: this.skipped },
    };
    if (this.model) result.meta.model = this.model;
    if (this.sourceId) result.meta.sourceId = this.sourceId;
    return result;
  }

  /** The builder's plan for a streamed import's second pass (after `finish`). */
  timestampPlan() {
    return this.builder.timestampPlan();
  }

  private release(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    for (const record of held) this.grouper.add(record);
  }

  private addUnit(unit: Unit): void {
    const builder = this.builder;
    const hasMainLine = this.hasMainLine;
    const first = unit.kind === 'assistant' ? (unit.group[0] as ConversationRecord) : unit.record;
    const branch = first.sidechain && hasMainLine ? SIDECHAIN_BRANCH : undefined;
    const location = `line ${first.line}`;
    const timestamp = toEpochSeconds(first.record.timestamp);
    this.sourceId ??=
      typeof first.record.sessionId === 'string' ? first.record.sessionId : undefined;

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
        this.model ??= lastMessage.model;
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
      return;
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
  const reader = new ClaudeCodeImport(options);
  text.split('\n').forEach((raw, index) => {
    reader.addLine(raw, index + 1);
  });
  return reader.finish();
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
