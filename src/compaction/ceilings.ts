/**
 * Request ceilings (SPEC §3.4): the last resort after compaction, when the retained tail alone
 * is over `maxRequestBytes` or the model's window. Oversized tool responses are truncated in
 * the view only (head and tail kept) with a marker naming the event that holds the full output;
 * stored events are never changed.
 */
import type { CompactionEvent, Content, Event, Part } from '../events/types.js';
import { estimateContentsTokens, estimatePartTokens } from './token-estimate.js';
import { type ActiveView, assembleView } from './view.js';

/** A truncated response keeps at least this many characters of the original output. */
export const MIN_KEPT_CHARACTERS = 512;

export interface FitViewOptions {
  checkpoint?: CompactionEvent;
  tail: Event[];
  /** Byte ceiling of the contents (UTF-8 JSON). */
  maxRequestBytes?: number;
  /** Token ceiling of the whole request (contents + overhead). */
  maxTokens?: number;
  /** System instruction + tool declarations. */
  overheadTokens?: number;
  allowPendingCalls?: boolean;
  /** The view already assembled from `checkpoint` + `tail` (e.g. with restored calls). */
  view?: ActiveView;
}

export interface FittedView extends ActiveView {
  /** UTF-8 bytes of the contents as sent. */
  bytes: number;
  /** Estimated tokens of the request (contents + overhead). */
  tokens: number;
  /** Still over a ceiling after truncation (e.g. the summary or plain text alone is too big). */
  overLimit: boolean;
  /** Function responses truncated in this view. */
  truncated: number;
}

/** UTF-8 bytes of the JSON the contents serialize to. */
export function contentsBytes(contents: Content[]): number {
  return Buffer.byteLength(JSON.stringify(contents), 'utf8');
}

function contentsTokens(contents: Content[], overheadTokens: number): number {
  return overheadTokens + estimateContentsTokens(contents);
}

interface ResponseSlot {
  contentIndex: number;
  partIndex: number;
  part: Part;
  /** The serialized response, what truncation cuts. */
  text: string;
  bytes: number;
  tokens: number;
  event?: Event;
}

/** `head … marker … tail` of `text`, keeping about `keep` characters. */
export function truncateMiddle(text: string, keep: number, marker: string): string {
  if (text.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = text.length - keep;
  return `${text.slice(0, head)}\n…[${omitted} characters omitted; ${marker}]…\n${text.slice(text.length - tail)}`;
}

function truncatedPart(slot: ResponseSlot, keep: number): Part {
  const response = slot.part.functionResponse!;
  const where = slot.event
    ? `the full output is stored in event ${slot.event.id} (seq ${slot.event.seq})`
    : 'the full output is stored in the session';
  return {
    ...slot.part,
    functionResponse: {
      ...response,
      response: { result: truncateMiddle(slot.text, keep, where), truncated: true },
    },
  };
}

function measurePart(part: Part): { bytes: number; tokens: number } {
  return {
    bytes: Buffer.byteLength(JSON.stringify(part), 'utf8') + 1,
    tokens: estimatePartTokens(part),
  };
}

/** The view, fitted under the ceilings when it can be; reports what it did and whether it fits. */
export function fitViewToCeilings(options: FitViewOptions): FittedView {
  const view =
    options.view ??
    assembleView({
      checkpoint: options.checkpoint,
      tail: options.tail,
      allowPendingCalls: options.allowPendingCalls,
    });
  const overhead = options.overheadTokens ?? 0;
  const maxBytes = options.maxRequestBytes ?? Number.POSITIVE_INFINITY;
  const maxTokens = options.maxTokens ?? Number.POSITIVE_INFINITY;
  let bytes = contentsBytes(view.contents);
  let tokens = contentsTokens(view.contents, overhead);
  if (bytes <= maxBytes && tokens <= maxTokens) {
    return { ...view, bytes, tokens, overLimit: false, truncated: 0 };
  }

  // Which stored event holds each response (for the marker): the view reuses the stored parts.
  const holder = new Map<Part, Event>();
  for (const event of view.events) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionResponse) holder.set(part, event);
    }
  }
  const slots: ResponseSlot[] = [];
  view.contents.forEach((content, contentIndex) => {
    content.parts.forEach((part, partIndex) => {
      if (!part.functionResponse) return;
      const text = JSON.stringify(part.functionResponse.response) ?? '';
      if (text.length <= MIN_KEPT_CHARACTERS) return;
      const size = measurePart(part);
      const event = holder.get(part);
      slots.push({ contentIndex, partIndex, part, text, ...size, event });
    });
  });
  if (slots.length === 0) return { ...view, bytes, tokens, overLimit: true, truncated: 0 };

  // The largest per-response size that fits (binary search on kept characters).
  const fits = (keep: number) => {
    let totalBytes = bytes;
    let totalTokens = tokens;
    for (const slot of slots) {
      if (slot.text.length <= keep) continue;
      const size = measurePart(truncatedPart(slot, keep));
      totalBytes += size.bytes - slot.bytes;
      totalTokens += size.tokens - slot.tokens;
    }
    return totalBytes <= maxBytes && totalTokens <= maxTokens;
  };
  let low = MIN_KEPT_CHARACTERS;
  let high = Math.max(...slots.map((slot) => slot.text.length));
  if (fits(low)) {
    while (high - low > 16) {
      const middle = Math.floor((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle;
    }
  }
  const keep = low;

  const contents = view.contents.map((content) => ({ ...content, parts: [...content.parts] }));
  const warnings = [...view.warnings];
  let truncated = 0;
  for (const slot of slots) {
    if (slot.text.length <= keep) continue;
    contents[slot.contentIndex]!.parts[slot.partIndex] = truncatedPart(slot, keep);
    truncated++;
    const response = slot.part.functionResponse!;
    warnings.push({
      kind: 'tool_output_truncated',
      seq: slot.event?.seq ?? -1,
      callId: response.id,
      message: `Truncated the output of '${response.name}' (call ${response.id}) from ${slot.text.length} to ${keep} characters in the view; the full output is in event ${slot.event?.id ?? '?'} (seq ${slot.event?.seq ?? '?'})`,
    });
  }
  bytes = contentsBytes(contents);
  tokens = contentsTokens(contents, overhead);
  return {
    ...view,
    contents,
    warnings,
    bytes,
    tokens,
    overLimit: bytes > maxBytes || tokens > maxTokens,
    truncated,
  };
}
