/**
 * A stored event as the inspector's timeline shows it: kind, estimated tokens, size and a short
 * preview, never the whole event (`GET .../events/:seq` has that). See
 * `docs/architecture.md#inspector`.
 */
import { branchCompactionOf } from '../../compaction/branch-view.js';
import { estimateEventTokens } from '../../compaction/token-estimate.js';
import { getText } from '../../events/event-helpers.js';
import type { CompactionEvent, Event, Part } from '../../events/types.js';
import {
  type CompactionSpan,
  PREVIEW_MAX_CHARS,
  type TimelineEvent,
  type TimelineEventKind,
} from './api-types.js';

function kindOf(event: Event): TimelineEventKind {
  if (event.actions?.compaction || branchCompactionOf(event)) return 'compaction';
  const parts = event.content?.parts ?? [];
  if (parts.some((part) => part.functionCall)) return 'tool-call';
  if (parts.some((part) => part.functionResponse)) return 'tool-result';
  if (!event.content || parts.length === 0) return 'other';
  if (event.content.role === 'user') return event.author === 'user' ? 'user' : 'other';
  return 'model';
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null) ?? 'null';
}

/** What one part reads as in a preview, and how many characters it carries. */
function describePart(part: Part): string {
  if (part.text !== undefined) return part.thought ? `(thought) ${part.text}` : part.text;
  if (part.functionCall) return `${part.functionCall.name}(${json(part.functionCall.args)})`;
  if (part.functionResponse) {
    return `${part.functionResponse.name} → ${json(part.functionResponse.response)}`;
  }
  if (part.executableCode) return part.executableCode.code;
  if (part.codeExecutionResult) return part.codeExecutionResult.output ?? '';
  if (part.inlineData) return `[${part.inlineData.mimeType}]`;
  if (part.fileData) return `[${part.fileData.fileUri}]`;
  return '';
}

function clip(text: string): string {
  if (text.length <= PREVIEW_MAX_CHARS) return text;
  return `${text.slice(0, PREVIEW_MAX_CHARS - 1)}…`;
}

export function toTimelineEvent(event: Event): TimelineEvent {
  const kind = kindOf(event);
  let text: string;
  const toolNames: string[] = [];
  if (kind === 'compaction') {
    text = getText((event.actions.compaction ?? branchCompactionOf(event))?.compactedContent);
  } else {
    const parts = event.content?.parts ?? [];
    text = parts.map(describePart).join('\n');
    for (const part of parts) {
      const name = part.functionCall?.name ?? part.functionResponse?.name;
      if (name !== undefined) toolNames.push(name);
    }
  }
  if (text === '' && event.errorMessage) text = `error: ${event.errorMessage}`;
  return {
    seq: event.seq,
    author: event.author,
    timestamp: event.timestamp,
    kind,
    tokens: estimateEventTokens(event),
    chars: text.length,
    preview: clip(text),
    ...(toolNames.length > 0 ? { toolNames } : {}),
    ...(event.partial ? { partial: true as const } : {}),
    ...(event.branch ? { branch: event.branch } : {}),
  };
}

/** A compaction event, or a branch's summary (`actions.branchCompaction`, with its `branch`). */
export function toCompactionSpan(event: CompactionEvent | Event): CompactionSpan {
  const compaction = event.actions.compaction ?? branchCompactionOf(event);
  if (!compaction) throw new TypeError(`event ${event.seq} is not a compaction`);
  return {
    seq: event.seq,
    startSeq: compaction.startSeq,
    endSeq: compaction.endSeq,
    trigger: compaction.trigger,
    tokensBefore: compaction.tokensBefore,
    tokensAfter: compaction.tokensAfter,
    summarizer: compaction.summarizer,
    ...(compaction.fallback
      ? { fallback: { from: compaction.fallback.from, reason: compaction.fallback.reason } }
      : {}),
    summary: getText(compaction.compactedContent),
    ...(!event.actions.compaction && event.branch ? { branch: event.branch } : {}),
  };
}

/** A trunk compaction or a branch summary: drawn as a span. */
export function isSpanEvent(event: Event): boolean {
  return event.actions?.compaction !== undefined || branchCompactionOf(event) !== undefined;
}
