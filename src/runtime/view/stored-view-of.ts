/**
 * The view a session read already holds (docs/architecture.md#the-view): a turn that reads the
 * session with its view need not read the view again for its first model call.
 */
import {
  isNonRollingCompaction,
  needsExpandedView,
  rewindTarget,
} from '../../compaction/expanded-view.js';
import { isValidCompaction } from '../../compaction/view.js';
import type { Event } from '../../events/types.js';
import type { StoredView } from '../../sessions/session-service.js';

/**
 * A `getSession` view's events (checkpoint first, then the tail) as `loadView` returns them, or
 * `undefined` when they are not in that shape. `lastSeq` is the largest seq seen, a lower bound
 * that only lets the next append extend the view if no other write came between.
 */
export function storedViewOf(events: Event[]): StoredView | undefined {
  const first = events[0];
  const checkpoint = first && isValidCompaction(first) ? first : undefined;
  const tail = checkpoint ? events.slice(1) : events;
  const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
  let lastSeq = checkpoint?.seq ?? 0;
  let previous = endSeq;
  for (const event of tail) {
    if (event.actions?.compaction || event.seq <= previous) return undefined;
    previous = event.seq;
    lastSeq = Math.max(lastSeq, event.seq);
  }
  const view = { checkpoint, tail, lastSeq };
  // Not what the model sees (imported ADK summaries, a rewind): the first call reads it expanded.
  return needsExpandedView(view) ? undefined : view;
}

/** What `storedViewOf` learned of a session's events, for the prefix it read. */
interface ReadPrefix {
  length: number;
  firstId: string;
  lastId: string;
  /** The largest seq seen (the checkpoint's included). */
  lastSeq: number;
  /** The last tail event's seq (the checkpoint's `endSeq` before any). */
  previous: number;
  /** A tail event that makes the result `undefined` whatever is appended after it. */
  broken: boolean;
}

/** Sessions remembered at most (the least recently read are forgotten). */
const DEFAULT_SESSIONS = 1_000;

/**
 * `storedViewOf`, reading only the events appended since the same session's last read: the
 * same result, without a pass over the whole tail each turn. `viewKey` names the session's
 * events (the same key must always name the same append-only sequence); a sequence that is not
 * the remembered one plus appends is read whole.
 */
export class StoredViewReader {
  private readonly sessions = new Map<string, ReadPrefix>();
  private readonly limit: number;

  constructor(options: { sessions?: number } = {}) {
    this.limit = Math.max(1, options.sessions ?? DEFAULT_SESSIONS);
  }

  read(options: { viewKey: string; events: Event[] }): StoredView | undefined {
    const { viewKey, events } = options;
    const first = events[0];
    const known = this.sessions.get(viewKey);
    this.sessions.delete(viewKey);
    if (!first) return storedViewOf(events);
    const checkpoint = isValidCompaction(first) ? first : undefined;
    const extends_ =
      known !== undefined &&
      events.length >= known.length &&
      first.id === known.firstId &&
      events[known.length - 1]!.id === known.lastId;
    const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
    const prefix: ReadPrefix = extends_
      ? known
      : {
          length: checkpoint ? 1 : 0,
          firstId: first.id,
          lastId: '',
          lastSeq: checkpoint?.seq ?? 0,
          previous: endSeq,
          broken: false,
        };
    for (let index = prefix.length; index < events.length && !prefix.broken; index++) {
      const event = events[index]!;
      // As `storedViewOf` and `needsExpandedView`'s scan of the tail.
      if (event.actions?.compaction || event.seq <= prefix.previous) prefix.broken = true;
      else if (rewindTarget(event) !== undefined) prefix.broken = true;
      else {
        prefix.previous = event.seq;
        prefix.lastSeq = Math.max(prefix.lastSeq, event.seq);
      }
    }
    prefix.length = events.length;
    prefix.lastId = events[events.length - 1]!.id;
    this.sessions.set(viewKey, prefix);
    if (this.sessions.size > this.limit) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
    if (prefix.broken || (checkpoint && isNonRollingCompaction(checkpoint))) return undefined;
    return { checkpoint, tail: checkpoint ? events.slice(1) : events, lastSeq: prefix.lastSeq };
  }
}
