/**
 * `assembleView`, extended from the previous turn's result instead of re-assembled, when all
 * that changed is plain events appended to the same tail (docs/performance.md, "Work in
 * proportion to what changed"). The result is the full assembly's, exactly: anything that could
 * change an earlier part of the view (a call or response, an elision rule, a compaction, a
 * partial event, repairs or warnings, a call still pending) falls back to `assembleView`.
 */
import { ContentTokenMemo } from '../../compaction/token-estimate.js';
import { type ActiveView, assembleView } from '../../compaction/view.js';
import type { CompactionEvent, Content, Event } from '../../events/types.js';

/**
 * The previous assembly of one view: private copies of its arrays (extended in place: no one
 * else holds them), the tail it came from, and its contents' token total once asked for.
 */
interface Extendable {
  checkpointId?: string;
  tailLength: number;
  firstId: string;
  lastId: string;
  lastSeq: number;
  events: Event[];
  contents: Content[];
  /** `estimateContentListTokens(contents)`, kept up to date by each extension once computed. */
  tokens?: number;
  /** The contents array last handed out for this view (the caller's copy). */
  returned: readonly Content[];
}

/** Views remembered at most (the least recently assembled are forgotten). */
const DEFAULT_VIEWS = 1_000;

/** An event that adds to the view's end without touching what is before it. */
function isPlain(event: Event): boolean {
  if (event.partial || event.actions?.compaction || event.actions?.elision) return false;
  for (const part of event.content?.parts ?? []) {
    if (part.functionCall || part.functionResponse) return false;
  }
  return true;
}

/**
 * Whether a view can be extended by plain events: no warnings (so no repair and no dangling
 * call), no elision rule, and no call left pending, which a later user message would turn into
 * a dangling one. Calls before the last model event are answered (or there would be warnings);
 * only that event's calls may be pending, answered or not by the responses after it.
 */
function isExtendable(view: ActiveView): boolean {
  if (view.warnings.length > 0 || view.elision || view.contents.length === 0) return false;
  const answered = new Set<string>();
  for (let index = view.events.length - 1; index >= 0; index--) {
    const event = view.events[index]!;
    if (event.partial || !event.content) continue;
    if (event.content.role === 'model') {
      return event.content.parts.every(
        (part) => !part.functionCall || answered.has(part.functionCall.id),
      );
    }
    let onlyResponses = true;
    for (const part of event.content.parts) {
      if (part.functionResponse) answered.add(part.functionResponse.id);
      else onlyResponses = false;
    }
    // A user message ends the last model turn: nothing before it is pending.
    if (!onlyResponses) return true;
  }
  return true;
}

export class ViewExtender {
  private readonly views = new Map<string, Extendable>();
  private readonly limit: number;
  private readonly memo: ContentTokenMemo;

  constructor(options: { views?: number; memo?: ContentTokenMemo } = {}) {
    this.limit = Math.max(1, options.views ?? DEFAULT_VIEWS);
    this.memo = options.memo ?? new ContentTokenMemo();
  }

  /**
   * The view of `checkpoint` + `tail` (as `assembleView` with pending calls allowed, no
   * restored calls and no store warnings). `viewKey` names the view: one session's, as one
   * scope sees it; the same key must always name the same append-only sequence.
   */
  assemble(options: { viewKey: string; checkpoint?: CompactionEvent; tail: Event[] }): ActiveView {
    const { viewKey, checkpoint, tail } = options;
    const previous = this.views.get(viewKey);
    this.views.delete(viewKey);
    if (previous && this.extend(previous, checkpoint, tail)) {
      this.views.set(viewKey, previous);
      // Fresh arrays for the caller: the model request's code may change them.
      const contents = previous.contents.slice();
      previous.returned = contents;
      return { checkpoint, events: previous.events.slice(), contents, warnings: [] };
    }
    const view = assembleView({ checkpoint, tail });
    if (tail.length > 0 && isExtendable(view)) {
      this.views.set(viewKey, {
        checkpointId: checkpoint?.id,
        tailLength: tail.length,
        firstId: tail[0]!.id,
        lastId: tail[tail.length - 1]!.id,
        lastSeq: tail[tail.length - 1]!.seq,
        // Copies: the returned arrays go to the model request, whose code may change them.
        events: view.events.slice(),
        contents: view.contents.slice(),
        returned: view.contents,
      });
      if (this.views.size > this.limit) {
        const oldest = this.views.keys().next().value;
        if (oldest !== undefined) this.views.delete(oldest);
      }
    }
    return view;
  }

  /**
   * `estimateContentListTokens(contents)`, from the running total of `viewKey`'s view when
   * `contents` is the array `assemble` just returned for it (so the previous total plus what was
   * appended, not a pass over the whole view); any other list is summed through the memo.
   */
  contentTokens(options: { viewKey: string; contents: readonly Content[] }): number {
    const entry = this.views.get(options.viewKey);
    if (!entry || entry.returned !== options.contents) {
      return this.memo.listTokens(options.contents);
    }
    // The private copy: the caller may have changed its own since.
    entry.tokens ??= this.memo.listTokens(entry.contents);
    return entry.tokens;
  }

  /**
   * Pushes the appended events onto `previous` in place and returns true, or returns false
   * (leaving it unchanged) when the tail is not the previous one plus plain events. Stored
   * events never change and seqs only grow, so a tail whose first and previous-last events are
   * the previous ones (by id) holds the same events in between.
   */
  private extend(
    previous: Extendable,
    checkpoint: CompactionEvent | undefined,
    tail: Event[],
  ): boolean {
    if (checkpoint?.id !== previous.checkpointId || tail.length < previous.tailLength) {
      return false;
    }
    if (tail[0]?.id !== previous.firstId || tail[previous.tailLength - 1]?.id !== previous.lastId) {
      return false;
    }
    let lastSeq = Math.max(previous.lastSeq, checkpoint?.actions.compaction.endSeq ?? 0);
    for (let index = previous.tailLength; index < tail.length; index++) {
      const event = tail[index]!;
      if (event.seq <= lastSeq || !isPlain(event)) return false;
      lastSeq = event.seq;
    }
    const { events, contents } = previous;
    let tokens = previous.tokens;
    for (let index = previous.tailLength; index < tail.length; index++) {
      const event = tail[index]!;
      events.push(event);
      const content = event.content;
      if (!content || content.parts.length === 0) continue;
      // As `assembleView` merges consecutive same-role contents.
      const last = contents[contents.length - 1]!;
      let added: Content;
      if (last.role === content.role) {
        added = { role: last.role, parts: [...last.parts, ...content.parts] };
        contents[contents.length - 1] = added;
        // The merged content is estimated afresh (its parts through the memo).
        if (tokens !== undefined) tokens -= this.memo.contentTokens(last);
      } else {
        added = { role: content.role, parts: content.parts };
        contents.push(added);
      }
      if (tokens !== undefined) tokens += this.memo.contentTokens(added);
    }
    previous.tokens = tokens;
    previous.tailLength = tail.length;
    previous.lastId = tail[tail.length - 1]!.id;
    previous.lastSeq = lastSeq;
    return true;
  }
}
