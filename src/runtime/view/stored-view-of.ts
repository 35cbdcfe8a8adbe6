/**
 * The view a session read already holds (docs/architecture.md#the-view): a turn that reads the
 * session with its view need not read the view again for its first model call.
 */
import { needsExpandedView } from '../../compaction/expanded-view.js';
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
