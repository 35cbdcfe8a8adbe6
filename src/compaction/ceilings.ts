/**
 * Request ceilings (docs/architecture.md#when-compaction-runs): the last resort after compaction,
 * when the retained tail alone is over `maxRequestBytes` or the model's window. Oversized tool
 * responses, the summary and long texts are truncated in the view only (head and tail kept) with a
 * marker naming the event that holds them whole; stored events are never changed. The user's unread
 * message is never cut (`keepWhole`).
 */
import type { CompactionEvent, Content, Event, Part } from '../events/types.js';
import {
  estimateContentListBytes,
  estimateContentListTokens,
  estimatePartTokens,
} from './token-estimate.js';
import { type ActiveView, assembleView, type ViewWarning } from './view.js';

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
  /** Ids of events never cut (the user's message the model has not read yet). */
  keepWhole?: ReadonlySet<string>;
}

export interface FittedView extends ActiveView {
  /** UTF-8 bytes of the contents as sent. */
  bytes: number;
  /** Estimated tokens of the request (contents + overhead). */
  tokens: number;
  /** Still over a ceiling after truncation (e.g. the summary or plain text alone is too big). */
  overLimit: boolean;
  /** Parts truncated in this view (tool outputs, the summary, long texts). */
  truncated: number;
}

function contentsTokens(contents: Content[], overheadTokens: number): number {
  return overheadTokens + estimateContentListTokens(contents);
}

/** A part that may be cut in the view: a tool's output, the summary, or a long text. */
interface CutSlot {
  contentIndex: number;
  partIndex: number;
  part: Part;
  kind: 'response' | 'summary' | 'text';
  /** What truncation cuts: the serialized response, or the text. */
  text: string;
  bytes: number;
  tokens: number;
  /** The stored event that holds it whole (the checkpoint for the summary). */
  event?: Event;
  /** Size of the part once cut, without the kept characters (marker and envelope). */
  cutBase: { bytes: number; tokens: number };
  /** Bytes and tokens each kept character adds, on average over the whole text. */
  perChar: { bytes: number; tokens: number };
}

/** `head … marker … tail` of `text`, keeping about `keep` characters. */
export function truncateMiddle(text: string, keep: number, marker: string): string {
  if (text.length <= keep) return text;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = text.length - keep;
  return `${text.slice(0, head)}\n…[${omitted} characters omitted; ${marker}]…\n${text.slice(text.length - tail)}`;
}

/**
 * The marker names the event by `seq` only (what `recall` reads by): an event's random id would
 * enter the measured request and move its token estimate from run to run.
 */
function whereStored(slot: Pick<CutSlot, 'kind' | 'event'>): string {
  const event = slot.event;
  if (slot.kind === 'summary') {
    return event
      ? `the whole summary is stored in compaction event at seq ${event.seq}`
      : 'the whole summary is stored in the session';
  }
  const what = slot.kind === 'response' ? 'output' : 'text';
  return event
    ? `the full ${what} is stored in event at seq ${event.seq}`
    : `the full ${what} is stored in the session`;
}

function truncatedPart(slot: Omit<CutSlot, 'cutBase' | 'perChar'>, keep: number): Part {
  return partWithText(slot, truncateMiddle(slot.text, keep, whereStored(slot)));
}

function partWithText(slot: Omit<CutSlot, 'cutBase' | 'perChar'>, cut: string): Part {
  if (slot.kind !== 'response') return { ...slot.part, text: cut };
  const response = slot.part.functionResponse!;
  return {
    ...slot.part,
    functionResponse: { ...response, response: { result: cut, truncated: true } },
  };
}

function measurePart(part: Part): { bytes: number; tokens: number } {
  return {
    bytes: Buffer.byteLength(JSON.stringify(part), 'utf8') + 1,
    tokens: estimatePartTokens(part),
  };
}

/** The parts that may be cut, longest kept text first in no particular order. */
function cutSlots(view: ActiveView, keepWhole: ReadonlySet<string>): CutSlot[] {
  // Which stored event holds each part (for the marker): the view reuses the stored parts.
  const holder = new Map<Part, Event>();
  for (const event of view.events) {
    for (const part of event.content?.parts ?? []) holder.set(part, event);
  }
  const slots: CutSlot[] = [];
  view.contents.forEach((content, contentIndex) => {
    content.parts.forEach((part, partIndex) => {
      const isSummary = view.checkpoint !== undefined && contentIndex === 0 && partIndex === 0;
      const event = isSummary ? view.checkpoint : holder.get(part);
      if (event && keepWhole.has(event.id)) return;
      let kind: CutSlot['kind'];
      let text: string;
      if (part.functionResponse) {
        kind = 'response';
        text = JSON.stringify(part.functionResponse.response) ?? '';
      } else if (typeof part.text === 'string' && (isSummary || event)) {
        kind = isSummary ? 'summary' : 'text';
        text = part.text;
      } else {
        return;
      }
      if (text.length <= MIN_KEPT_CHARACTERS) return;
      const slot = { contentIndex, partIndex, part, kind, text, ...measurePart(part), event };
      // Measured once here, so the search below never re-serializes megabytes per step.
      const markerOnly = truncateMiddle(text, 0, whereStored(slot)).trim();
      const cutBase = measurePart(partWithText(slot, markerOnly));
      const kept = partWithText(slot, text);
      const keptSize = measurePart(kept);
      const perChar = {
        bytes: Math.max(0, keptSize.bytes - cutBase.bytes) / text.length,
        tokens: Math.max(0, keptSize.tokens - cutBase.tokens) / text.length,
      };
      slots.push({ ...slot, cutBase, perChar });
    });
  });
  return slots;
}

function truncationWarning(slot: CutSlot, keep: number): ViewWarning {
  const where = slot.event ? `event ${slot.event.id} (seq ${slot.event.seq})` : 'the session';
  if (slot.kind === 'response') {
    const response = slot.part.functionResponse!;
    return {
      kind: 'tool_output_truncated',
      seq: slot.event?.seq ?? -1,
      callId: response.id,
      message: `Truncated the output of '${response.name}' (call ${response.id}) from ${slot.text.length} to ${keep} characters in the view; the full output is in ${where}`,
    };
  }
  const what = slot.kind === 'summary' ? 'the summary' : 'a text';
  return {
    kind: 'text_truncated',
    seq: slot.event?.seq ?? -1,
    message: `Truncated ${what} from ${slot.text.length} to ${keep} characters in the view; the whole text is in ${where}`,
  };
}

/** The view's contents with every slot longer than `keep` cut to it, measured exactly. */
function cutTo(view: ActiveView, slots: CutSlot[], keep: number, overhead: number) {
  const contents = view.contents.map((content) => ({ ...content, parts: [...content.parts] }));
  const warnings = [...view.warnings];
  let truncated = 0;
  for (const slot of slots) {
    if (slot.text.length <= keep) continue;
    contents[slot.contentIndex]!.parts[slot.partIndex] = truncatedPart(slot, keep);
    truncated++;
    warnings.push(truncationWarning(slot, keep));
  }
  return {
    contents,
    warnings,
    truncated,
    bytes: estimateContentListBytes(contents),
    tokens: contentsTokens(contents, overhead),
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
  let bytes = estimateContentListBytes(view.contents);
  let tokens = contentsTokens(view.contents, overhead);
  if (bytes <= maxBytes && tokens <= maxTokens) {
    return { ...view, bytes, tokens, overLimit: false, truncated: 0 };
  }

  const slots = cutSlots(view, options.keepWhole ?? new Set());
  if (slots.length === 0) return { ...view, bytes, tokens, overLimit: true, truncated: 0 };

  // The largest size per cut part that fits (binary search on kept characters): the largest
  // parts are cut first, and all of them to the same length. The search estimates each cut from
  // per-character averages; the result is then measured exactly and cut further if need be.
  const estimatedFit = (keep: number) => {
    let totalBytes = bytes;
    let totalTokens = tokens;
    for (const slot of slots) {
      if (slot.text.length <= keep) continue;
      totalBytes += slot.cutBase.bytes + Math.ceil(keep * slot.perChar.bytes) - slot.bytes;
      totalTokens += slot.cutBase.tokens + Math.ceil(keep * slot.perChar.tokens) - slot.tokens;
    }
    return totalBytes <= maxBytes && totalTokens <= maxTokens;
  };
  let low = MIN_KEPT_CHARACTERS;
  let high = Math.max(...slots.map((slot) => slot.text.length));
  if (estimatedFit(low)) {
    while (high - low > 16) {
      const middle = Math.floor((low + high) / 2);
      if (estimatedFit(middle)) low = middle;
      else high = middle;
    }
  }
  let keep = low;
  let cut = cutTo(view, slots, keep, overhead);
  // Uneven text (escapes, wide characters) can make the estimate low: shrink by the excess
  // until it fits.
  while ((cut.bytes > maxBytes || cut.tokens > maxTokens) && keep > MIN_KEPT_CHARACTERS) {
    let bytesPerKept = 0;
    let tokensPerKept = 0;
    for (const slot of slots) {
      if (slot.text.length <= keep) continue;
      bytesPerKept += slot.perChar.bytes;
      tokensPerKept += slot.perChar.tokens;
    }
    const excess = Math.max(
      bytesPerKept > 0 ? (cut.bytes - maxBytes) / bytesPerKept : 0,
      tokensPerKept > 0 ? (cut.tokens - maxTokens) / tokensPerKept : 0,
    );
    keep = Math.max(MIN_KEPT_CHARACTERS, keep - Math.max(16, Math.ceil(excess * 1.1)));
    cut = cutTo(view, slots, keep, overhead);
  }
  const { contents, warnings, truncated } = cut;
  bytes = cut.bytes;
  tokens = cut.tokens;
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
