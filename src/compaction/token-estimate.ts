/**
 * Token estimates without a tokenizer: pure, allocation-free scans. Plain `chars / 4`
 * under-counts JSON, numbers, ids and non-Latin text badly, so characters are weighed by
 * class (measured against a BPE tokenizer in `npm run bench`).
 */
import type { Content, NewEvent, Part } from '../events/types.js';

/** Fixed cost of one content (role markers, separators). */
const CONTENT_OVERHEAD = 4;
/** Fixed cost of a function call or response envelope (name, id, braces). */
const CALL_OVERHEAD = 8;
/** A non-text part (image, audio) as providers commonly bill a small image. */
const INLINE_DATA_TOKENS = 258;

export function estimateTextTokens(text: string): number {
  let letters = 0;
  let digits = 0;
  let symbols = 0;
  let wideChars = 0;
  let spaces = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90)) letters++;
    else if (code >= 48 && code <= 57) digits++;
    else if (code === 32) spaces++;
    else if (code < 128) symbols++;
    else if (code >= 0xdc00 && code <= 0xdfff) {
      // low surrogate: counted with its high surrogate
    } else wideChars++;
  }
  // Words of Latin letters average ~4.5 characters a token; each digit group of ~3 is one
  // token; punctuation, newlines and quotes are mostly a token each, though runs merge.
  return Math.ceil(letters / 4.6 + digits / 2.6 + symbols * 0.62 + spaces * 0.08 + wideChars * 0.9);
}

function estimateValueTokens(value: unknown): number {
  if (value === undefined || value === null) return 1;
  if (typeof value === 'string') return estimateTextTokens(value);
  return estimateTextTokens(JSON.stringify(value) ?? '');
}

export function estimatePartTokens(part: Part): number {
  if (part.text !== undefined) return estimateTextTokens(part.text);
  if (part.functionCall) {
    return (
      CALL_OVERHEAD +
      estimateTextTokens(part.functionCall.name) +
      estimateValueTokens(part.functionCall.args)
    );
  }
  if (part.functionResponse) {
    return (
      CALL_OVERHEAD +
      estimateTextTokens(part.functionResponse.name) +
      estimateValueTokens(part.functionResponse.response)
    );
  }
  // A file by URI is billed like an inline one once the provider fetches it.
  if (part.inlineData || part.fileData) return INLINE_DATA_TOKENS;
  if (part.executableCode) {
    return CALL_OVERHEAD + estimateTextTokens(part.executableCode.code);
  }
  if (part.codeExecutionResult) {
    return CALL_OVERHEAD + estimateTextTokens(part.codeExecutionResult.output ?? '');
  }
  return 0;
}

export function estimateContentTokens(content: Content): number {
  let total = CONTENT_OVERHEAD;
  for (const part of content.parts) total += estimatePartTokens(part);
  return total;
}

/** Every content of a request (without system instruction and tools). */
export function estimateContentListTokens(contents: readonly Content[]): number {
  let total = 0;
  for (const content of contents) total += estimateContentTokens(content);
  return total;
}

/**
 * `estimateContentTokens` remembered by identity: a content's part list (the stored event's own
 * array when the view did not merge or repair it) and each part. A view is re-assembled every
 * turn from the same stored events (the stores hand out the same objects while cached), so a
 * turn estimates only what is new. Sound because views and stored events are never changed in
 * place: merges, repairs, elision and truncation build new arrays and parts (a new array is a
 * new key). One memo per runtime component, not shared globally; entries go with their objects.
 */
export class ContentTokenMemo {
  private readonly byParts = new WeakMap<readonly Part[], number>();
  private readonly byPart = new WeakMap<Part, number>();

  contentTokens(content: Content): number {
    const known = this.byParts.get(content.parts);
    if (known !== undefined) return CONTENT_OVERHEAD + known;
    let total = 0;
    for (const part of content.parts) total += this.partTokens(part);
    this.byParts.set(content.parts, total);
    return CONTENT_OVERHEAD + total;
  }

  /** `estimateContentListTokens`, each content through the memo. */
  listTokens(contents: readonly Content[]): number {
    let total = 0;
    for (const content of contents) total += this.contentTokens(content);
    return total;
  }

  private partTokens(part: Part): number {
    const known = this.byPart.get(part);
    if (known !== undefined) return known;
    const tokens = estimatePartTokens(part);
    this.byPart.set(part, tokens);
    return tokens;
  }
}

/** What an event adds to a request: its content, or a compaction's summary. */
export function estimateEventTokens(event: NewEvent): number {
  const summary = event.actions?.compaction?.compactedContent;
  if (summary) return estimateContentTokens(summary);
  return event.content ? estimateContentTokens(event.content) : 0;
}

/** UTF-8 bytes of the JSON a content serializes to: the unit of request-size ceilings. */
export function estimateContentBytes(content: Content): number {
  return Buffer.byteLength(JSON.stringify(content), 'utf8');
}

/**
 * Every content of a request, in bytes: the sum of `estimateContentBytes`, so the ceilings and
 * the runtime's guard count the same request the same way.
 */
export function estimateContentListBytes(contents: readonly Content[]): number {
  let total = 0;
  for (const content of contents) total += estimateContentBytes(content);
  return total;
}

/**
 * `estimateEventTokens` of one session's stored events, remembered by `seq` (a stored event
 * never changes, and seq identifies it within its session). Bounded: past `limit` entries the
 * oldest are forgotten. Not for events of several sessions, nor for unstored ones.
 */
export class SessionEventTokens {
  private readonly limit: number;
  private readonly bySeq = new Map<number, number>();

  constructor(options: { limit?: number } = {}) {
    this.limit = Math.max(1, options.limit ?? 100_000);
  }

  tokens(event: NewEvent & { seq: number }): number {
    const known = this.bySeq.get(event.seq);
    if (known !== undefined) return known;
    const tokens = estimateEventTokens(event);
    if (this.bySeq.size >= this.limit) {
      const oldest = this.bySeq.keys().next().value;
      if (oldest !== undefined) this.bySeq.delete(oldest);
    }
    this.bySeq.set(event.seq, tokens);
    return tokens;
  }
}
