/**
 * `estimatePartTokens` remembered by part object. A replay reads each stored event's parts
 * through several counts (the token trigger, the request with compaction, the request without);
 * they all hold the same part objects, so each part is estimated once. Stored parts never change
 * (docs/architecture.md#the-event-model); a part edited in place must not be passed twice.
 */
import {
  estimateContentTokens,
  estimateEventTokens,
  estimatePartTokens,
} from '../../compaction/token-estimate.js';
import type { Event, Part } from '../../events/types.js';

/** `estimateContentTokens` of a content without parts: its fixed cost. */
const CONTENT_TOKENS = estimateContentTokens({ role: 'user', parts: [] });

export class PartTokens {
  private readonly byPart = new WeakMap<Part, number>();
  /** Event estimates by `seq`: one session's stored events only. */
  private readonly bySeq = new Map<number, number>();

  /** `estimatePartTokens(part)`. */
  readonly part = (part: Part): number => {
    let tokens = this.byPart.get(part);
    if (tokens === undefined) {
      tokens = estimatePartTokens(part);
      this.byPart.set(part, tokens);
    }
    return tokens;
  };

  /** `estimateEventTokens(event)` of one session's stored event, remembered by `seq`. */
  readonly event = (event: Event): number => {
    let tokens = this.bySeq.get(event.seq);
    if (tokens === undefined) {
      tokens = this.estimateEvent(event);
      this.bySeq.set(event.seq, tokens);
    }
    return tokens;
  };

  private estimateEvent(event: Event): number {
    // A compaction counts as its summary: rare, so not broken into parts.
    if (event.actions?.compaction || !event.content) return estimateEventTokens(event);
    let tokens = CONTENT_TOKENS;
    for (const part of event.content.parts) tokens += this.part(part);
    return tokens;
  }
}
