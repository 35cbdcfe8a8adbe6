/**
 * The view of a history that orrery's checkpoint + tail cannot show: imported ADK compactions,
 * which each summarize only their own window (not rolling), and ADK rewinds. The result is what
 * ADK's request assembly (`_get_contents` in ADK for Python's `flows/llm_flows/contents.py`)
 * sends, in orrery's terms: rewound events left out, then every summary no other one subsumes,
 * each at the end of its range, and the raw events no kept summary covers, in `seq` order.
 * Ranges are compared by `seq` (ADK compares timestamps; the import derived the seqs from them).
 * Pure; the runtime reads the full history only when `needsExpandedView` says so.
 */
import type { CompactionEvent, Event } from '../events/types.js';
import { isBetterCheckpoint, isValidCompaction, summaryContent } from './view.js';

/** Marks a summary put into an expanded view's tail: the `seq` of its compaction event. */
export const EXPANDED_SUMMARY_KEY = 'orrery:summaryOf';

/** A summary that covers only its own range (ADK's); orrery's own summaries are rolling. */
export function isNonRollingCompaction(event: Event): boolean {
  return event.actions?.compaction?.rolling === false;
}

/** The invocation an ADK rewind event annuls, or `undefined` (ADK ignores an empty id). */
export function rewindTarget(event: Event): string | undefined {
  const target = event.actions?.rewindBeforeInvocationId;
  return typeof target === 'string' && target !== '' ? target : undefined;
}

/**
 * Whether a stored view (checkpoint + tail) is not what the model should see: its checkpoint
 * covers only its own window, or a rewind in the tail annuls earlier events.
 */
export function needsExpandedView(view: { checkpoint?: CompactionEvent; tail: Event[] }): boolean {
  if (view.checkpoint && isNonRollingCompaction(view.checkpoint)) return true;
  return view.tail.some((event) => rewindTarget(event) !== undefined);
}

/**
 * ADK's rewind rule: walking back from the newest event, a rewind event drops itself and every
 * event from the first one of its target invocation up to it; a target that is not found drops
 * the rewind event alone. `events` in `seq` order; the result keeps that order.
 */
export function applyRewinds(events: readonly Event[]): Event[] {
  const kept: Event[] = [];
  let index = events.length - 1;
  while (index >= 0) {
    const event = events[index]!;
    const target = rewindTarget(event);
    if (target === undefined) {
      kept.push(event);
    } else {
      const first = events.findIndex(
        (candidate, position) => position < index && candidate.invocationId === target,
      );
      if (first >= 0) index = first;
    }
    index--;
  }
  return kept.reverse();
}

/** The compactions no other one subsumes (a wider range, or the same range written later). */
export function keptCompactions(events: readonly Event[]): CompactionEvent[] {
  const compactions = events.filter(isValidCompaction);
  return compactions.filter((compaction) => {
    const { startSeq, endSeq } = compaction.actions.compaction;
    return !compactions.some((other) => {
      if (other === compaction) return false;
      const range = other.actions.compaction;
      if (range.startSeq > startSeq || range.endSeq < endSeq) return false;
      return range.startSeq < startSeq || range.endSeq > endSeq || other.seq > compaction.seq;
    });
  });
}

/** A kept summary as a view event: user-role summary text at the end of the range it covers. */
function summaryEvent(compaction: CompactionEvent): Event {
  const range = compaction.actions.compaction;
  return {
    id: compaction.id,
    invocationId: compaction.invocationId,
    author: 'user',
    timestamp: range.endTimestamp,
    content: summaryContent(compaction),
    actions: {},
    customMetadata: { [EXPANDED_SUMMARY_KEY]: compaction.seq },
    // No raw event of the view has this seq: the kept summary covers it.
    seq: range.endSeq,
  };
}

export interface ExpandedView {
  /**
   * Kept summaries (as user-role events, `customMetadata[EXPANDED_SUMMARY_KEY]` set, `seq` the
   * end of their range) and the raw events none covers, rewound ones left out, in `seq` order.
   */
  tail: Event[];
  /** The stored checkpoint (`null`: none), which a compaction of this view must expect. */
  checkpointSeq: number | null;
  /** The largest `seq` in the history (0 when empty). */
  lastSeq: number;
}

/** ADK's view of a full history (`events` in `seq` order), as orrery events. */
export function expandView(options: { events: readonly Event[] }): ExpandedView {
  const { events } = options;
  let checkpoint: CompactionEvent | undefined;
  for (const event of events) {
    if (isValidCompaction(event) && isBetterCheckpoint(event, checkpoint)) checkpoint = event;
  }
  const live = applyRewinds(events);
  const kept = keptCompactions(live);
  const covered = (seq: number) =>
    kept.some(
      ({ actions }) => actions.compaction.startSeq <= seq && seq <= actions.compaction.endSeq,
    );
  const tail: Event[] = kept.map(summaryEvent);
  for (const event of live) {
    if (event.actions?.compaction || covered(event.seq)) continue;
    tail.push(event);
  }
  tail.sort((left, right) => left.seq - right.seq);
  return {
    tail,
    checkpointSeq: checkpoint?.seq ?? null,
    lastSeq: events.length > 0 ? events[events.length - 1]!.seq : 0,
  };
}
