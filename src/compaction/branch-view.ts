/**
 * Branch-scoped views (docs/workflows.md#branch-views): which stored events an agent on a branch
 * sees. A branch is a dotted path (`sweep.network`, `triage.sweep.network`), as ADK's
 * `ParallelAgent` names them; no branch (or ADK's `""`) is the trunk. Pure: no I/O.
 *
 * - Events of the agent's own branch and of its ancestors (the trunk included) are seen whole:
 *   ADK's rule (`_is_event_belongs_to_branch`: the invocation's branch equals the event's or
 *   starts with it followed by a dot).
 * - A sibling's events are never seen.
 * - A descendant's events (a branch that ran under this one and finished) are seen only as its
 *   results: model events holding text and no call. The agents after a parallel step read each
 *   branch's final answer verbatim, not the tool output it read on the way.
 * - A branch's summary (`actions.branchCompaction`, stored on the branch) is a checkpoint only
 *   for that branch and its descendants; the trunk's summary (`actions.compaction`, no branch)
 *   is the store's checkpoint and is seen everywhere.
 */
import type { CompactionEvent, Event, EventCompaction } from '../events/types.js';
import type { ViewScope } from './types.js';
import { isBetterCheckpoint, isValidCompaction } from './view.js';

/** `undefined` for the trunk (no branch, or ADK's empty string). */
export function branchOf(event: { branch?: string }): string | undefined {
  return event.branch === undefined || event.branch === '' ? undefined : event.branch;
}

/** `ancestor` is `branch` itself or a branch above it (the trunk is above every branch). */
export function isOnBranchPath(ancestor: string | undefined, branch: string | undefined): boolean {
  if (ancestor === undefined) return true;
  if (branch === undefined) return false;
  return branch === ancestor || branch.startsWith(`${ancestor}.`);
}

/** A branch's result as the agents above it read it: a model answer with text and no call. */
export function isBranchResult(event: Event): boolean {
  const content = event.content;
  if (content?.role !== 'model' || event.partial) return false;
  let text = false;
  for (const part of content.parts) {
    if (part.functionCall || part.functionResponse) return false;
    if (part.text !== undefined && part.text !== '' && !part.thought) text = true;
  }
  return text;
}

/** The summary a branch stored for its own view (`actions.branchCompaction`). */
export function branchCompactionOf(event: Event): EventCompaction | undefined {
  const value = event.actions?.branchCompaction as EventCompaction | undefined;
  return value && typeof value === 'object' ? value : undefined;
}

/** A stored branch summary in the shape of a checkpoint, when it is a valid one. */
function asCheckpoint(event: Event): CompactionEvent | undefined {
  const compaction = branchCompactionOf(event);
  if (!compaction) return undefined;
  const candidate = { ...event, actions: { ...event.actions, compaction } };
  return isValidCompaction(candidate) ? candidate : undefined;
}

/** Whether an agent on `scope.branch` sees `event` (summaries aside). */
export function isVisibleOnBranch(event: Event, scope: ViewScope): boolean {
  const own = branchOf(event);
  if (isOnBranchPath(own, scope.branch)) return true;
  // A descendant's (the event's branch lies under the scope's): its results only.
  if (own !== undefined && isOnBranchPath(scope.branch, own)) return isBranchResult(event);
  return false;
}

/**
 * The checkpoint and tail an agent on `scope.branch` sees, from the store's (trunk) checkpoint
 * and everything stored after it: the best valid summary on its path, then the visible events
 * after that summary's range, in `seq` order. Branch summaries never appear as tail events.
 */
export function scopeView<View extends { checkpoint?: CompactionEvent; tail: Event[] }>(
  view: View,
  scope: ViewScope,
): View & { checkpoint?: CompactionEvent } {
  let checkpoint = view.checkpoint;
  for (const event of view.tail) {
    if (!isOnBranchPath(branchOf(event), scope.branch)) continue;
    const candidate = asCheckpoint(event);
    if (candidate && isBetterCheckpoint(candidate, checkpoint)) checkpoint = candidate;
  }
  const endSeq = checkpoint?.actions.compaction.endSeq ?? 0;
  const tail = view.tail.filter(
    (event) =>
      event.seq > endSeq &&
      branchCompactionOf(event) === undefined &&
      isVisibleOnBranch(event, scope),
  );
  return { ...view, checkpoint, tail };
}

/** A whole history's events as `scope` sees them (summaries included), for replay and export. */
export function eventsOnBranch(events: Event[], scope: ViewScope): Event[] {
  return events.filter((event) => {
    if (branchCompactionOf(event)) return isOnBranchPath(branchOf(event), scope.branch);
    if (event.actions?.compaction) return true;
    return isVisibleOnBranch(event, scope);
  });
}

/**
 * Whether a transcript has workflow branches: a dotted branch, as ADK's `ParallelAgent` names
 * them (`parallel.child`). A single-segment branch (Claude Code's `sidechain`) is not one, so
 * such transcripts keep the unscoped view.
 */
export function hasWorkflowBranches(events: readonly { branch?: string }[]): boolean {
  return events.some((event) => event.branch?.includes('.') === true);
}
