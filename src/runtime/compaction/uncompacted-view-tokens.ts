/**
 * The estimated tokens of the request a session would send with no compaction at all (every
 * event so far, viewed by `assembleView`), kept current as events are appended: O(parts) per
 * event instead of re-assembling the whole history before every model call, which made a
 * replay quadratic in its length. The figure equals `assembleView({ tail })` counted part by
 * part: orphan responses dropped, calls without a result answered with a synthetic error
 * (until a result arrives), the pending last model turn left alone, same-role contents merged
 * and a continuation opening a view that starts with the model.
 */
import { estimateContentTokens, estimatePartTokens } from '../../compaction/token-estimate.js';
import { CONTINUATION_TEXT, MISSING_RESULT_RESPONSE } from '../../compaction/view.js';
import type { Event, Part, Role } from '../../events/types.js';

/** One push of `assembleView`: an event's kept parts, or the synthetic answers to its calls. */
interface Segment {
  role: Role;
  tokens: number;
  previous?: Segment;
  next?: Segment;
  /** Synthetic segments only: unanswered calls left (the segment leaves the list at 0). */
  calls: number;
  linked: boolean;
}

/** A synthetic answer in the view: which segment holds it and what it costs. */
interface SyntheticAnswer {
  segment: Segment;
  tokens: number;
}

const CONTENT_TOKENS = estimateContentTokens({ role: 'user', parts: [] });
const CONTINUATION_TOKENS = estimateContentTokens({
  role: 'user',
  parts: [{ text: CONTINUATION_TEXT }],
});

export class UncompactedViewTokens {
  /** Every part and synthetic answer in the view. */
  private partTokens = 0;
  /** Adjacent segments in the list with different roles (each starts a new content). */
  private boundaries = 0;
  private head?: Segment;
  private last?: Segment;
  /** Call ids seen in any part (`assembleView`'s pass 1) and in kept parts (pass 2). */
  private readonly callsSeen = new Set<string>();
  private readonly callsKept = new Set<string>();
  /** Calls a later response answered: never answered synthetically again. */
  private readonly answered = new Set<string>();
  /** The synthetic answers in the view, by call id (removed when the call is answered). */
  private readonly synthetic = new Map<string, SyntheticAnswer[]>();
  /** The synthetic answers of the model turn whose calls may still be pending. */
  private pending?: Segment;
  private readonly estimatePart: (part: Part) => number;

  /** `estimatePart`: default `estimatePartTokens` (e.g. a `PartTokens` shared with other counts). */
  constructor(options: { estimatePart?: (part: Part) => number } = {}) {
    this.estimatePart = options.estimatePart ?? estimatePartTokens;
  }

  /** Adds the next stored event (in `seq` order; compaction events are not part of the view). */
  append(event: Event): void {
    if (event.partial || event.actions?.compaction) return;
    const content = event.content;
    if (!content) return;
    const parts = content.parts;
    // Pass 2 drops a response whose call is in no earlier event's kept parts.
    const dropped = new Set(
      parts.filter(
        (part) => part.functionResponse && !this.callsKept.has(part.functionResponse.id),
      ),
    );
    // Pass 1 reads every part in order: a response answers a call seen before it.
    for (const part of parts) {
      const response = part.functionResponse;
      if (response && this.callsSeen.has(response.id)) this.answer(response.id);
      if (part.functionCall) this.callsSeen.add(part.functionCall.id);
    }
    const kept = dropped.size === 0 ? parts : parts.filter((part) => !dropped.has(part));
    let answers: Segment | undefined;
    if (kept.length > 0) {
      let tokens = 0;
      for (const part of kept) tokens += this.estimatePart(part);
      this.link({ role: content.role, tokens, calls: 0, linked: false });
      for (const part of kept) {
        const call = part.functionCall;
        if (!call) continue;
        this.callsKept.add(call.id);
        if (this.answered.has(call.id)) continue;
        answers ??= { role: 'user', tokens: 0, calls: 0, linked: false };
        const tokensOfAnswer = estimatePartTokens({
          functionResponse: {
            id: call.id,
            name: call.name,
            response: { ...MISSING_RESULT_RESPONSE },
          },
        });
        answers.tokens += tokensOfAnswer;
        answers.calls++;
        const list = this.synthetic.get(call.id) ?? [];
        list.push({ segment: answers, tokens: tokensOfAnswer });
        this.synthetic.set(call.id, list);
      }
      if (answers) this.link(answers);
    }
    // The last model turn keeps its calls pending while only responses follow it.
    if (content.role === 'model') this.pending = answers;
    else if (parts.some((part) => part.functionResponse === undefined)) this.pending = undefined;
  }

  /** The request's estimated tokens: `overheadTokens` plus every content of the view. */
  total(overheadTokens: number): number {
    let tokens = overheadTokens + this.partTokens;
    let boundaries = this.boundaries;
    let head = this.head;
    const pending = this.pending;
    if (pending?.linked) {
      // Left out of the view: its calls may still be answered by the tools.
      tokens -= pending.tokens;
      boundaries += this.boundariesWithout(pending);
      if (head === pending) head = pending.next;
    }
    if (!head) return tokens;
    tokens += CONTENT_TOKENS * (boundaries + 1);
    return head.role === 'model' ? tokens + CONTINUATION_TOKENS : tokens;
  }

  /** A response arrived for `id`: every synthetic answer to it leaves the view. */
  private answer(id: string): void {
    if (this.answered.has(id)) return;
    this.answered.add(id);
    for (const { segment, tokens } of this.synthetic.get(id) ?? []) {
      segment.tokens -= tokens;
      segment.calls--;
      if (segment.linked) this.partTokens -= tokens;
      if (segment.calls === 0 && segment.linked) this.unlink(segment);
    }
    this.synthetic.delete(id);
  }

  private link(segment: Segment): void {
    segment.linked = true;
    segment.previous = this.last;
    if (this.last) {
      this.last.next = segment;
      if (this.last.role !== segment.role) this.boundaries++;
    } else {
      this.head = segment;
    }
    this.last = segment;
    this.partTokens += segment.tokens;
  }

  private unlink(segment: Segment): void {
    this.boundaries += this.boundariesWithout(segment);
    const { previous, next } = segment;
    if (previous) previous.next = next;
    else this.head = next;
    if (next) next.previous = previous;
    else this.last = previous;
    segment.linked = false;
    segment.previous = undefined;
    segment.next = undefined;
  }

  /** How the count of role changes moves when `segment` leaves the list. */
  private boundariesWithout(segment: Segment): number {
    const { previous, next } = segment;
    const differs = (left?: Segment, right?: Segment) =>
      left && right && left.role !== right.role ? 1 : 0;
    return differs(previous, next) - differs(previous, segment) - differs(segment, next);
  }
}
