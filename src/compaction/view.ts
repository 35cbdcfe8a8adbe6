/**
 * The active view (docs/architecture.md#the-view): the checkpoint's summary followed by every
 * non-compaction event after its range, turned into provider-ready contents. Ranges are decided by
 * `seq` only. Pure: input events are never mutated; repairs (orphans, dangling calls) live in the
 * view only.
 */
import { getText } from '../events/event-helpers.js';
import type { CompactionEvent, Content, Event, EventElision, Part } from '../events/types.js';
import { applyElision, latestElision } from './elision.js';

/** Marks the summary when it reaches the model as the first user-role content. */
export const SUMMARY_PREFIX = 'Summary of the conversation so far:\n';

/** Opens the contents when the tail starts with a model turn and there is no summary. */
export const CONTINUATION_TEXT = '(continuing the conversation)';

/** The response a call without a recorded result gets in the view (never stored). */
export const MISSING_RESULT_RESPONSE = { error: 'No result was recorded for this call.' };

export interface ViewWarning {
  kind:
    | 'orphan_response_dropped'
    | 'orphan_call_restored'
    | 'dangling_call_answered'
    | 'tool_output_truncated'
    | 'text_truncated'
    /** A stored compaction the store would not use as checkpoint (corrupt or impossible range). */
    | 'checkpoint_skipped';
  seq: number;
  callId?: string;
  message: string;
}

export interface ActiveView {
  checkpoint?: CompactionEvent;
  /** The tail events in `seq` order (what follows the checkpoint). */
  events: Event[];
  /** Provider-ready contents: summary first (user role), roles merged, orphans repaired. */
  contents: Content[];
  warnings: ViewWarning[];
  /**
   * The elision rule the view applied (the newest valid one in the tail): `events` and
   * `contents` show its placeholders. Absent: no rule.
   */
  elision?: EventElision;
}

export interface AssembleViewOptions {
  checkpoint?: CompactionEvent;
  tail: Event[];
  /**
   * Calls of the last model event may be pending (tools about to run): keep them as they are.
   * Default true. Other calls without a response get a synthetic error response in the view.
   */
  allowPendingCalls?: boolean;
  /**
   * Stored events holding the calls of orphan responses (their call is not in the view: imported
   * or legacy data), by call id, looked up by the caller (the view does no I/O). The call part
   * is put back right before its response as a model content; an orphan without an entry here
   * is dropped with an `orphan_response_dropped` warning.
   */
  restoredCalls?: ReadonlyMap<string, Event>;
  /** Warnings the store reported while loading (`StoredView.warnings`); they come first. */
  warnings?: readonly ViewWarning[];
}

/** The call part with `callId` in a stored event, if it holds one. */
function findCallPart(event: Event | undefined, callId: string): Part | undefined {
  return event?.content?.parts.find((part) => part.functionCall?.id === callId);
}

/**
 * The one validity rule of a stored compaction (docs/architecture.md#the-view): integer bounds with
 * `1 <= startSeq <= endSeq < seq` and a summary to show. Anything else (imports, legacy rows) is
 * ignored by the view and by every store; the SQL stores repeat the range part as a predicate.
 */
export function isValidCompaction(event: Event): event is CompactionEvent {
  const compaction = event.actions?.compaction;
  if (!compaction) return false;
  const { startSeq, endSeq } = compaction;
  return (
    Number.isInteger(startSeq) &&
    Number.isInteger(endSeq) &&
    startSeq >= 1 &&
    startSeq <= endSeq &&
    endSeq < event.seq &&
    compaction.compactedContent !== undefined &&
    Array.isArray(compaction.compactedContent.parts)
  );
}

/** True when `candidate` beats `current` as checkpoint: larger `endSeq`, ties the later `seq`. */
export function isBetterCheckpoint(
  candidate: CompactionEvent,
  current: CompactionEvent | undefined,
): boolean {
  if (!current) return true;
  const candidateEnd = candidate.actions.compaction.endSeq;
  const currentEnd = current.actions.compaction.endSeq;
  return candidateEnd > currentEnd || (candidateEnd === currentEnd && candidate.seq > current.seq);
}

/** The valid compaction with the largest `endSeq`; ties: the later `seq`. */
export function selectCheckpoint(events: Event[]): CompactionEvent | undefined {
  let best: CompactionEvent | undefined;
  for (const event of events) {
    if (isValidCompaction(event) && isBetterCheckpoint(event, best)) best = event;
  }
  return best;
}

/** The summary as the model reads it: one user-role text content. */
export function summaryContent(checkpoint: CompactionEvent): Content {
  return {
    role: 'user',
    parts: [{ text: SUMMARY_PREFIX + getText(checkpoint.actions.compaction.compactedContent) }],
  };
}

function isSorted(events: Event[]): boolean {
  for (let index = 1; index < events.length; index++) {
    if (events[index]!.seq <= events[index - 1]!.seq) return false;
  }
  return true;
}

/**
 * The model event whose calls may still be pending: the last event with a model-role content,
 * when nothing but function responses follows it (a user message after it ends that turn).
 */
function pendingModelIndex(events: Event[]): number {
  for (let index = events.length - 1; index >= 0; index--) {
    const content = events[index]!.content;
    if (!content) continue;
    if (content.role === 'model') return index;
    if (content.parts.some((part) => part.functionResponse === undefined)) return -1;
  }
  return -1;
}

/** The tail events after the checkpoint's range, compaction events left out, in `seq` order. */
function tailAfter(checkpoint: CompactionEvent | undefined, tail: Event[]): Event[] {
  const endSeq = checkpoint?.actions.compaction.endSeq ?? Number.NEGATIVE_INFINITY;
  // Stores hand a clean tail; filtering again keeps hand-built tails honest for O(tail).
  const events = tail.filter((event) => event.seq > endSeq && !event.actions?.compaction);
  return isSorted(events) ? events : [...events].sort((left, right) => left.seq - right.seq);
}

/** Call ids that have a (kept) response after their call. */
function answeredCallIds(visible: Event[]): Set<string> {
  const callsSeen = new Set<string>();
  const answered = new Set<string>();
  for (const event of visible) {
    for (const part of event.content?.parts ?? []) {
      if (part.functionResponse && callsSeen.has(part.functionResponse.id)) {
        answered.add(part.functionResponse.id);
      }
      if (part.functionCall) callsSeen.add(part.functionCall.id);
    }
  }
  return answered;
}

/** Contents with consecutive same-role turns merged (provider rules). */
class MergedContents {
  readonly list: Content[] = [];

  push(content: Content): void {
    const last = this.list[this.list.length - 1];
    if (last && last.role === content.role) {
      this.list[this.list.length - 1] = {
        role: last.role,
        parts: [...last.parts, ...content.parts],
      };
    } else {
      this.list.push(content);
    }
  }
}

/** What one pass over the visible events shares. */
interface RepairState {
  contents: MergedContents;
  warnings: ViewWarning[];
  answered: ReadonlySet<string>;
  /** Calls already in the contents. */
  callsBefore: Set<string>;
  restoredCalls?: ReadonlyMap<string, Event>;
}

/**
 * An event's parts without orphan responses, and the calls restored for them (pushed first).
 * Warnings name each restore and drop.
 */
function withoutOrphans(event: Event, content: Content, state: RepairState): Part[] {
  let parts: Part[] = content.parts;
  let restored: Part[] | undefined;
  for (const part of content.parts) {
    const response = part.functionResponse;
    if (!response || state.callsBefore.has(response.id)) continue;
    const callEvent = state.restoredCalls?.get(response.id);
    const callPart = findCallPart(callEvent, response.id);
    if (callPart && callEvent && content.role === 'user') {
      restored ??= [];
      restored.push(callPart);
      state.callsBefore.add(response.id);
      state.warnings.push({
        kind: 'orphan_call_restored',
        seq: event.seq,
        callId: response.id,
        message: `Restored call '${response.id}' (${response.name}) from seq ${callEvent.seq} before its response at seq ${event.seq}: the call is not in the view`,
      });
    } else {
      if (parts === content.parts) parts = [...content.parts];
      parts = parts.filter((candidate) => candidate !== part);
      state.warnings.push({
        kind: 'orphan_response_dropped',
        seq: event.seq,
        callId: response.id,
        message: `Dropped the response to call '${response.id}' (${response.name}) at seq ${event.seq}: its call is not in the view`,
      });
    }
  }
  if (restored) state.contents.push({ role: 'model', parts: restored });
  return parts;
}

/** Synthetic error responses for the calls in `parts` that have none (not pending). */
function answerDangling(event: Event, parts: Part[], pending: boolean, state: RepairState) {
  let synthetic: Part[] | undefined;
  for (const part of parts) {
    const call = part.functionCall;
    if (!call) continue;
    state.callsBefore.add(call.id);
    if (state.answered.has(call.id) || pending) continue;
    synthetic ??= [];
    synthetic.push({
      functionResponse: { id: call.id, name: call.name, response: { ...MISSING_RESULT_RESPONSE } },
    });
    state.warnings.push({
      kind: 'dangling_call_answered',
      seq: event.seq,
      callId: call.id,
      message: `Call '${call.id}' (${call.name}) at seq ${event.seq} has no recorded result: answered with an error in the view`,
    });
  }
  return synthetic;
}

/** One event into the contents: orphan responses repaired, dangling calls answered. */
function pushEvent(event: Event, pending: boolean, state: RepairState): void {
  const content = event.content;
  if (!content || content.parts.length === 0) return;
  const parts = withoutOrphans(event, content, state);
  const synthetic = answerDangling(event, parts, pending, state);
  if (parts.length > 0) state.contents.push({ role: content.role, parts });
  if (synthetic) state.contents.push({ role: 'user', parts: synthetic });
}

/**
 * The view from a checkpoint + tail (what stores load in O(tail)): the summary, then the tail
 * under the elision rule in force (docs/architecture.md#elision-the-cheap-tier), orphans
 * repaired.
 */
export function assembleView(options: AssembleViewOptions): ActiveView {
  const { checkpoint } = options;
  const allowPendingCalls = options.allowPendingCalls ?? true;
  const tail = tailAfter(checkpoint, options.tail);
  const rule = latestElision(tail)?.actions.elision;
  const events = applyElision(tail, rule);
  const visible = events.filter((event) => !event.partial);
  const state: RepairState = {
    contents: new MergedContents(),
    warnings: [...(options.warnings ?? [])],
    answered: answeredCallIds(visible),
    callsBefore: new Set<string>(),
    restoredCalls: options.restoredCalls,
  };
  if (checkpoint) state.contents.push(summaryContent(checkpoint));
  const pendingIndex = allowPendingCalls ? pendingModelIndex(visible) : -1;
  visible.forEach((event, index) => {
    pushEvent(event, index === pendingIndex, state);
  });

  const contents = state.contents.list;
  if (contents[0]?.role === 'model') {
    contents.unshift({ role: 'user', parts: [{ text: CONTINUATION_TEXT }] });
  }
  const view: ActiveView = { checkpoint, events, contents, warnings: state.warnings };
  if (rule) view.elision = rule;
  return view;
}

/** The view from a whole event list (any order; sorted by `seq`). */
export function activeView(options: { events: Event[]; allowPendingCalls?: boolean }): ActiveView {
  const sorted = isSorted(options.events)
    ? options.events
    : [...options.events].sort((left, right) => left.seq - right.seq);
  const checkpoint = selectCheckpoint(sorted);
  return assembleView({ checkpoint, tail: sorted, allowPendingCalls: options.allowPendingCalls });
}
