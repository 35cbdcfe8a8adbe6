/**
 * Renders events to the plain-text transcript a summarizer prompt holds (and the `recall` tool
 * returns). Pure. Each block names its event's `seq`, so a summary can say which range it
 * covers and the agent can recall it. Thoughts are left out (the model's scratch work, not
 * facts). A tool result's text is shown as text (its lines, not JSON escapes), and a long tool
 * item keeps the lines that matter (errors, failures, stack frames, diff file names) before
 * filling the rest of its cap with head and tail (cap-tool-output.ts).
 */
import { isCompactionEvent } from '../events/event-helpers.js';
import type { Event, Part } from '../events/types.js';
import { capText } from './cap-text.js';
import { capToolOutput } from './cap-tool-output.js';

export const DEFAULT_MAX_ITEM_CHARS = 2000;

export interface RenderOptions {
  events: Event[];
  /** Cap of one call's arguments or one response, in characters (head and tail kept). */
  maxItemChars?: number;
}

function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // BigInt or a cycle: a lossy string beats failing the whole compaction
    return String(value);
  }
}

/**
 * A tool result as readable text: a multi-line string field is shown as its lines (as JSON it
 * would be one line of `\n` escapes, which no line-based cap can keep apart, and in which
 * `\nlib/x.ts` reads as a path `nlib/x.ts`). Anything else stays JSON.
 */
export function renderResponse(response: Record<string, unknown>): string {
  const entries = Object.entries(response);
  const multiLine = entries.some(([, value]) => typeof value === 'string' && value.includes('\n'));
  if (!multiLine) return toJson(response);
  return entries
    .map(([key, value]) =>
      typeof value === 'string' && value.includes('\n')
        ? `${key}:\n${value}`
        : `${key}: ${toJson(value)}`,
    )
    .join('\n');
}

/** Decoded size of base64 data, without decoding it. */
function base64Bytes(data: string): number {
  let padding = 0;
  if (data.endsWith('==')) padding = 2;
  else if (data.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function renderPart(part: Part, maxItemChars: number): string | null {
  if (part.thought) return null;
  if (part.functionCall) {
    const { name, id, args } = part.functionCall;
    return `call ${name}(${id}) ${capToolOutput({ text: toJson(args ?? {}), maxChars: maxItemChars })}`;
  }
  if (part.functionResponse) {
    const { name, id, response } = part.functionResponse;
    const text = renderResponse(response ?? {});
    return `result ${name}(${id}): ${capToolOutput({ text, maxChars: maxItemChars })}`;
  }
  if (part.inlineData) {
    return `[inline ${part.inlineData.mimeType}, ${base64Bytes(part.inlineData.data)} bytes]`;
  }
  if (part.fileData) {
    const { fileUri, mimeType } = part.fileData;
    return `[file ${mimeType ?? 'of unknown type'}: ${fileUri}]`;
  }
  if (part.executableCode) {
    const language = part.executableCode.language ?? 'code';
    return `code (${language}): ${capText({ text: part.executableCode.code, maxChars: maxItemChars })}`;
  }
  if (part.codeExecutionResult) {
    const { outcome, output } = part.codeExecutionResult;
    return `code result ${outcome}: ${capToolOutput({ text: output ?? '', maxChars: maxItemChars })}`;
  }
  if (part.text !== undefined) return part.text;
  return null;
}

/** One event as a block of text, or `null` when it holds nothing a summary needs. */
export function renderEvent(options: { event: Event; maxItemChars?: number }): string | null {
  const { event } = options;
  if (isCompactionEvent(event)) return null;
  const maxItemChars = options.maxItemChars ?? DEFAULT_MAX_ITEM_CHARS;
  const lines: string[] = [];
  for (const part of event.content?.parts ?? []) {
    const line = renderPart(part, maxItemChars);
    if (line !== null && line !== '') lines.push(line);
  }
  if (event.errorCode !== undefined || event.errorMessage !== undefined) {
    const code = event.errorCode ?? 'unknown';
    lines.push(`error ${code}: ${event.errorMessage ?? ''}`.trimEnd());
  }
  if (lines.length === 0) return null;
  const role = event.content?.role ?? 'none';
  return `[seq ${event.seq} · ${event.author} (${role})]\n${lines.join('\n')}`;
}

/** Each non-empty, non-compaction event as one block, in order. */
export function renderEventBlocks(options: RenderOptions): string[] {
  const blocks: string[] = [];
  for (const event of options.events) {
    const block = renderEvent({ event, maxItemChars: options.maxItemChars });
    if (block !== null) blocks.push(block);
  }
  return blocks;
}

/** The whole transcript: blocks separated by a blank line. */
export function renderEvents(options: RenderOptions): string {
  return renderEventBlocks(options).join('\n\n');
}
