/**
 * Claude Code JSONL records, one line at a time, and their grouping into conversation units:
 * the records of one assistant message (sharing `message.id`) are one model call, and tool
 * results written between them follow it. The grouping keeps only the message being streamed
 * and the results written inside it (a bounded window), so a streamed import never holds the
 * file. See docs/architecture.md#edge (importers).
 */
import { ImportError } from './errors.js';
import { isRecord } from './json-input.js';

const FORMAT = 'claude-code';

export interface ConversationRecord {
  line: number;
  type: 'user' | 'assistant';
  record: Record<string, unknown>;
  message: Record<string, unknown>;
  blocks: Record<string, unknown>[];
  sidechain: boolean;
}

/** One step of the conversation: a model call (all records of one message) or a user record. */
export type Unit =
  | { kind: 'assistant'; group: ConversationRecord[]; interleaved: number }
  | { kind: 'user'; record: ConversationRecord };

/**
 * One line: a conversation record, `skipped` (another record type: `summary`, `progress`, ...)
 * or `undefined` (a blank line). A malformed line throws naming the line.
 */
export function parseRecordLine(
  raw: string,
  line: number,
): ConversationRecord | 'skipped' | undefined {
  if (raw.trim() === '') return undefined;
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
    return 'skipped';
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
  return {
    line,
    type: record.type,
    record,
    message,
    blocks: contentBlocks(message.content, line),
    sidechain: record.isSidechain === true,
  };
}

function contentBlocks(content: unknown, line: number): Record<string, unknown>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content)) {
    return content.map((block, blockIndex) => {
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
  }
  throw new ImportError({
    message: 'must be a string or a list of content blocks',
    line,
    path: 'message.content',
    format: FORMAT,
  });
}

function isToolResultsOnly(record: ConversationRecord): boolean {
  return (
    record.type === 'user' &&
    record.blocks.length > 0 &&
    record.blocks.every((block) => block.type === 'tool_result')
  );
}

interface OpenMessage {
  first: ConversationRecord;
  group: ConversationRecord[];
  /** Results written between records of the message: they follow it. */
  deferred: ConversationRecord[];
  /** Results after the message's latest record: they follow it only if another record comes. */
  pending: ConversationRecord[];
}

/**
 * The records in the order they become events, fed one at a time. Claude Code writes one
 * assistant message as several records sharing `message.id`, and runs a tool as soon as its
 * `tool_use` has streamed, so the records of its results may sit between those of the message.
 * All records of one message are one model call; results interleaved with them follow it, in
 * their order. A unit is handed to `emit` once no later record can change it.
 */
export class UnitGrouper {
  private open?: OpenMessage;

  constructor(private readonly emit: (unit: Unit) => void) {}

  add(record: ConversationRecord): void {
    const open = this.open;
    if (open) {
      if (record.sidechain === open.first.sidechain) {
        if (record.type === 'assistant' && record.message.id === open.first.message.id) {
          open.group.push(record);
          open.deferred.push(...open.pending);
          open.pending = [];
          return;
        }
        if (isToolResultsOnly(record)) {
          open.pending.push(record);
          return;
        }
      }
      this.close();
    }
    this.start(record);
  }

  /** The transcript ended: the message still open is complete. */
  finish(): void {
    this.close();
  }

  private start(record: ConversationRecord): void {
    if (record.type !== 'assistant') {
      this.emit({ kind: 'user', record });
    } else if (record.message.id === undefined) {
      this.emit({ kind: 'assistant', group: [record], interleaved: 0 });
    } else {
      this.open = { first: record, group: [record], deferred: [], pending: [] };
    }
  }

  private close(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    this.emit({ kind: 'assistant', group: open.group, interleaved: open.deferred.length });
    for (const record of open.deferred) this.emit({ kind: 'user', record });
    // Results after the message's last record start again: each is a unit of its own.
    for (const record of open.pending) this.start(record);
  }
}
