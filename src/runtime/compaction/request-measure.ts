/**
 * Replay's per-request figures, counted part by part with each part's estimate and JSON size
 * remembered: a compacted view re-assembled from the same stored events shares their part
 * objects, so a part is measured once however many requests hold it. The summary is a new part
 * in every view (its text prefixed anew), so the last few long texts are also remembered by
 * value. The figures equal `estimateContentTokens` and `estimateContentBytes` summed over the
 * contents, plus the overhead.
 */
import { estimateContentTokens, estimatePartTokens } from '../../compaction/token-estimate.js';
import type { Content, Part } from '../../events/types.js';

export interface RequestFigures {
  tokens: number;
  bytes: number;
}

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
/** `{"role":` + `,"parts":[` + `]}` around a content's role and parts. */
const CONTENT_FRAME_BYTES = utf8('{"role":,"parts":[]}');
/** A text part this long is remembered by value too (a summary is a few thousand characters). */
const LONG_TEXT = 1_000;
/** Long texts remembered by value: the current summary and a few before it. */
const LONG_TEXTS_KEPT = 4;

/** Whether a content serializes as `{"role":…,"parts":[…]}` (every view content does). */
function isPlainContent(content: Content): boolean {
  let keys = 0;
  for (const key in content) {
    keys++;
    if ((keys === 1 && key !== 'role') || (keys === 2 && key !== 'parts') || keys > 2) {
      return false;
    }
  }
  return keys === 2 && typeof content.role === 'string' && Array.isArray(content.parts);
}

/** A part that is `{ text }` alone: its figures follow from the text. */
function textOnly(part: Part): string | undefined {
  if (typeof part.text !== 'string') return undefined;
  let keys = 0;
  for (const _key in part) keys++;
  return keys === 1 ? part.text : undefined;
}

export class RequestMeasure {
  private readonly overhead: RequestFigures;
  private readonly parts = new WeakMap<Part, RequestFigures>();
  private readonly longTexts: Array<{ text: string; figures: RequestFigures }> = [];
  private readonly estimatePart: (part: Part) => number;

  /** `estimatePart`: default `estimatePartTokens` (e.g. a `PartTokens` shared with other counts). */
  constructor(overhead: RequestFigures, options: { estimatePart?: (part: Part) => number } = {}) {
    this.overhead = overhead;
    this.estimatePart = options.estimatePart ?? estimatePartTokens;
  }

  /** The request's estimated tokens and JSON bytes, the overhead's included. */
  measure(contents: readonly Content[]): RequestFigures {
    let tokens = this.overhead.tokens;
    let bytes = this.overhead.bytes;
    for (const content of contents) {
      // estimateContentTokens of an empty content is its fixed overhead alone.
      tokens += estimateContentTokens({ role: content.role, parts: [] });
      const plain = isPlainContent(content);
      if (plain) {
        bytes += CONTENT_FRAME_BYTES + utf8(JSON.stringify(content.role));
        // Parts joined by commas.
        bytes += Math.max(0, content.parts.length - 1);
      } else {
        bytes += utf8(JSON.stringify(content));
      }
      for (const part of content.parts) {
        const figures = this.part(part);
        tokens += figures.tokens;
        if (plain) bytes += figures.bytes;
      }
    }
    return { tokens, bytes };
  }

  private part(part: Part): RequestFigures {
    const known = this.parts.get(part);
    if (known) return known;
    const text = textOnly(part);
    const long = text !== undefined && text.length >= LONG_TEXT;
    let figures = long ? this.longTexts.find((entry) => entry.text === text)?.figures : undefined;
    if (!figures) {
      figures = { tokens: this.estimatePart(part), bytes: utf8(JSON.stringify(part) ?? 'null') };
      if (long) {
        if (this.longTexts.length >= LONG_TEXTS_KEPT) this.longTexts.shift();
        this.longTexts.push({ text, figures });
      }
    }
    this.parts.set(part, figures);
    return figures;
  }
}
