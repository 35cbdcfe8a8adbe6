/**
 * The stored view the model should see. Stores load checkpoint + tail in O(tail); when that is
 * not the conversation (an imported ADK summary covers only its own window, or an ADK rewind
 * annuls earlier events), the full history is read once and viewed as ADK would send it. The
 * next compaction folds that view into a rolling summary, and loads are O(tail) again.
 */
import { scopeView } from '../../compaction/branch-view.js';
import { expandView, needsExpandedView } from '../../compaction/expanded-view.js';
import type { ViewScope } from '../../compaction/types.js';
import type { Event, SessionKey } from '../../events/types.js';
import type { SessionService, StoredView } from '../../sessions/session-service.js';

/** Page size of the full-history read. */
const HISTORY_PAGE_SIZE = 1000;

export interface LoadActiveViewOptions extends SessionKey {
  sessionService: SessionService;
  /**
   * Set under a workflow with branches: the view of `scope.branch` (the trunk when absent), as
   * `scopeView` rules (docs/workflows.md#branch-views). Absent: every event, as today.
   */
  scope?: ViewScope;
  signal?: AbortSignal;
}

/** `loadView`, expanded from the full history when the stored view is not what ADK would send. */
export async function loadActiveView(options: LoadActiveViewOptions): Promise<StoredView> {
  const { sessionService, signal, scope, ...key } = options;
  const stored = await sessionService.loadView({ ...key, signal });
  const view = needsExpandedView(stored)
    ? await expandStoredView({ sessionService, ...key, signal })
    : stored;
  return scope ? scopeView(view, scope) : view;
}

/** The whole history, in `seq` order, read page by page. */
async function readHistory(options: LoadActiveViewOptions): Promise<Event[]> {
  const { sessionService, signal, ...key } = options;
  const events: Event[] = [];
  let afterSeq: number | undefined;
  for (;;) {
    const page = await sessionService.listEvents({
      ...key,
      afterSeq,
      limit: HISTORY_PAGE_SIZE,
      signal,
    });
    events.push(...page.events);
    if (page.nextCursor === undefined || page.events.length === 0) return events;
    afterSeq = page.nextCursor;
  }
}

async function expandStoredView(options: LoadActiveViewOptions): Promise<StoredView> {
  const expanded = expandView({ events: await readHistory(options) });
  return {
    tail: expanded.tail,
    lastSeq: expanded.lastSeq,
    expandedFromCheckpointSeq: expanded.checkpointSeq,
  };
}
